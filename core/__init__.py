"""The base layer (issue 25): problems and their docs, Redis, the command base class,
client addresses, log formats, environment parsing, metric objects, control-character
refusal and the generic OpenAPI helpers. It imports no app of this project (neither a
domain app nor the wiring in ``foodservice/``); every app may import it."""
