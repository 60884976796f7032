"""The HTTP edges of ``/graphql``: multipart file uploads (``upload_request.py``, the size
guard in ``upload_guard.py``) and the stored files' download route (``file_download.py``).
"""
