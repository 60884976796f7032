"""Code structure: repositories, files, classes and methods as graph knowledge."""
