"""One demo AG-UI service per framework: `build_app()` returns an ASGI app whose POST `/`
is an AG-UI endpoint with citations turned on by the framework's one-line change."""
