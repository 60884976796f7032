"""Sources a user already has, turned into knowledge: files (``files``), web pages
(``crawl``) and source code (``code``). Each subpackage holds its rules and ports; the
parsers, fetchers and file formats behind the ports live in ``kenning.storage.sources``.
``html_limits`` is the bound every HTML page is parsed within, crawled or uploaded;
``document_ingest`` is a document written now (``ingest``), as a caller asks for it.
What is stored is listed by ``listing`` (``sources``, ``storedFiles``) and removed a crawl or
a repository branch at a time by ``unit_purge`` (``purgeCrawl``, ``purgeRepository``)."""
