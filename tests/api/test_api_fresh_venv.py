"""The notebook example of docs/python-api.md in a fresh virtual environment, from an install of the checkout.

What it proves that the in-place tests cannot: the declared dependencies are enough (pandas, ir_measures …
come from ``pip install``, not from the test extras), the package data ship, and nothing depends on the
source tree being on ``sys.path``. Installing every dependency takes minutes, so the test is in the stress
tier (tests/conftest.py): ``.ci/run`` runs it once per change, and ``TREC_TOOLKIT_SLOW=1`` here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "python-api.md"

pytestmark = pytest.mark.slow

CHECKS = """
import json, sys
print(json.dumps({
    "prefix": sys.prefix,
    "toolkit": toolkit.__file__,
    "all": {f"{r}/{m}": v for r, q, m, v in scores.itertuples(index=False, name=None) if q == "all"},
    "runs": list(result.runs),
    "delta": {row.measure: row.delta for row in result.to_dataframe().itertuples()},
    "html": result._repr_html_()[:40],
}))
"""


def notebook_example() -> str:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## A notebook session", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_notebook_example_in_a_fresh_venv(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT / "toolkit", source / "toolkit", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # --no-compile: pip would byte-compile every module of every dependency (most of the install's CPU time);
    # the example compiles what it imports, which is what a user's first run does too.
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-compile", str(source)],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert install.returncode == 0, install.stderr[-3000:]

    work = tmp_path / "notebook"  # not the checkout: `import toolkit` must find the installed package
    work.mkdir()
    (work / "example.py").write_text(notebook_example() + CHECKS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    run = subprocess.run(
        [str(python), "example.py"], cwd=work, capture_output=True, text=True, timeout=600, env=env
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.splitlines()[-1])
    assert Path(out["prefix"]).resolve() == env_dir.resolve()
    assert Path(out["toolkit"]).resolve().is_relative_to(env_dir.resolve())
    # by hand (tests/api/test_api_docs.py has the per-topic ranks): RR@10 bm25 23/36, dense 3/4; P@1 2/6, 4/6
    assert out["all"] == pytest.approx(
        {"bm25/RR@10": 23 / 36, "bm25/P@1": 2 / 6, "dense/RR@10": 0.75, "dense/P@1": 4 / 6}
    )
    assert out["runs"] == ["bm25", "dense"]
    assert out["delta"] == pytest.approx({"RR@10": 0.75 - 23 / 36, "P@1": 2 / 6})
    assert out["html"].startswith('<div class="trec-toolkit">')
    help_text = subprocess.run(
        [str(env_dir / "bin" / "trec-toolkit"), "--help"], capture_output=True, text=True, timeout=120
    )
    assert help_text.returncode == 0 and "compare" in help_text.stdout
    assert sys.prefix != out["prefix"]
