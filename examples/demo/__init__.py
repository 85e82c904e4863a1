"""The offline demo: an example MOCA package, a Reader over it, a scripted model, and one
AG-UI service per framework, all without network or API key. Run `moca-agui demo`."""
