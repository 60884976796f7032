from pydantic import Field

from .base_model import BaseModel
from .enums import Role


class Viewer(BaseModel):
    viewer: "ViewerViewer"


class ViewerViewer(BaseModel):
    key_id: str = Field(alias="keyId")
    role: Role
    scope: "ViewerViewerScope"


class ViewerViewerScope(BaseModel):
    client_id: str = Field(alias="clientId")
    project_id: str = Field(alias="projectId")


Viewer.model_rebuild()
ViewerViewer.model_rebuild()
