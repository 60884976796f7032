"""PNG and JPEG: checked with Pillow (size from the header, before decoding), then read by
OCR. The image itself is the file's one ``FoundImage``; ``extract_file`` turns it into text
(a vision model's description, or the OCR text alone)."""

from __future__ import annotations

import io
import warnings

from PIL import Image

from kenning.domain.sources.files.document import DocumentBuilder
from kenning.domain.sources.files.errors import CorruptFileError, FileTooLargeError
from kenning.domain.sources.files.extracted import ExtractedFile, FoundImage, Location, MediaType
from kenning.domain.sources.files.limits import check_pixels
from kenning.storage.sources.files.context import ReadContext


def read_image(data: bytes, media_type: MediaType, context: ReadContext) -> ExtractedFile:
    """The image, its OCR text attached (unless OCR is NEVER)."""
    check_image(data, context)
    builder = DocumentBuilder()
    builder.images.append(FoundImage(data, media_type.value, Location(), context.recognise(data)))
    return builder.build(media_type)


def check_image(data: bytes, context: ReadContext) -> None:
    """Refuse an image over the pixel limit or one Pillow cannot decode."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                check_pixels(image.width, image.height, context.limits)
                image.load()
    except Image.DecompressionBombError as error:
        raise FileTooLargeError(str(error)) from None
    except (OSError, SyntaxError, ValueError) as error:
        raise CorruptFileError(f"the image cannot be decoded: {error}") from None
