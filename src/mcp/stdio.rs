//! stdio proxy (placeholder during development).
