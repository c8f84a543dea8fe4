"""``python -m toolkit`` runs the same CLI as the ``trec-toolkit`` console script."""

from toolkit.cli import main

if __name__ == "__main__":
    main()
