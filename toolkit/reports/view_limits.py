"""How much of a comparison the HTML's per-topic view holds by default.

A module of its own, with no imports, so that the command line can say the default in ``--help`` without
loading the statistics (``toolkit.reports.topic_view`` uses it).
"""

#: Topics per candidate the page holds when the caller does not say (``--topics-shown``, ``[audit]
#: topics_shown``), the most changed first: the example's report stays well under a few MB, and a
#: 7,000-topic comparison's page under 20 MB (bench/bench_topic_view.py).
DEFAULT_TOPICS_SHOWN = 1000
