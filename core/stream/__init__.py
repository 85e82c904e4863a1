"""The stream: where a run's events go in an AG-UI stream, followed as the client reads it."""
