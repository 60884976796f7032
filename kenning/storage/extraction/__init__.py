"""What model extraction stores: check-in records of structuring calls and the extraction
cache keyed by chunk content, model and prompt version."""
