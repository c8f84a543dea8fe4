"""The corpus builder's version, apart from the builder so the search path can read it without imports."""

#: Bump when the builder changes what it writes, so caches built by an older builder are not reused.
CORPUS_VERSION = 2
