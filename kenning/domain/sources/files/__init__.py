"""Files: type detection from content, text and structure extraction, OCR."""
