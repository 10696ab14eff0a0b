//! gateway (placeholder during development).
