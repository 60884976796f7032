"""Files: type detection from content, text and structure extraction, OCR.

The ``FileParser`` port of ``kenning.domain.sources.files`` over offline libraries. Read
first: ``parser.py`` (dispatch by detected type), ``detect.py`` (type from content),
``archive.py`` (ZIP bombs), then one module per format family.
"""

from kenning.storage.sources.files.detect import detect
from kenning.storage.sources.files.ocr import TesseractOcr
from kenning.storage.sources.files.parser import LibraryFileParser

__all__ = ["LibraryFileParser", "TesseractOcr", "detect"]
