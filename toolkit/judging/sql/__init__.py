"""What both SQL backends of the campaign store share: the schema declared once (``tables``), the DDL and
migrations derived from it (``ddl``), what differs between the two databases (``dialect``), and every read and
organiser write written once (``store``). The backends (``toolkit.judging.sqlite``, ``toolkit.judging.postgres``)
keep only connecting, locking, appending one event and bulk loading.
"""
