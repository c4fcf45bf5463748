"""One module per provider. Each ends by declaring its APIs with ``register(ApiFormat(...))``
(``citeview/core/detection/registry.py``), which finds every module here by itself."""
