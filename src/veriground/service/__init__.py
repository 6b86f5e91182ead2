"""`veriground serve`: the HTTP API and the web page over one corpus (FastAPI + uvicorn)."""
