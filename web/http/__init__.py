"""The HTTP edge: blueprints (feed, api, pages, png, ws), request schemas, OpenAPI, and the one
error shape with the table that maps each domain error to its HTTP status (``errors``)."""
