"""The HTTP edge: blueprints (feed, api, pages, shoes pages, png, WebSocket routes, full frames, offline),
request parsing (schemas, model specs, screen and display options, query), the PNG routes' render gate,
freshness headers and error images, OpenAPI, and the one error shape with the table that maps each
domain error to its HTTP status (``errors``)."""
