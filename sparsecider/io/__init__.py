"""Files in and out: caption files (``captions``), JSON-lines records
(``records``), whole-file text and atomic outputs (``text``), legacy
document-frequency pickles (``legacy``)."""
