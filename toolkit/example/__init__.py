"""The example workspace's search system: the Python standard library's docstrings, searched with FTS5.

``python -m toolkit.example search QUERY [--engine bm25|bm25f] [--limit N]`` prints JSON results;
``python -m toolkit.example show DOC_ID`` prints one document; ``ids`` prints every doc id; ``build``
(re)builds the cache. Kept import-light: each search is its own process.
"""
