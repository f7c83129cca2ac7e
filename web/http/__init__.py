"""The HTTP edge: blueprints (feed, api, pages, shoes pages, png, WebSocket routes, full frames), request
parsing (schemas, model specs, screen and display options), OpenAPI, and the one error shape with the
table that maps each domain error to its HTTP status (``errors``)."""
