"""Pure rules and use cases; imports no driver, no Strawberry, no httpx."""
