//! The `surfaces:` section: whether what hosts show only to their user (elicitation forms,
//! progress messages) is scanned like what the model reads. A configuration type, so it lives
//! with the configuration; `mcp/surfaces.rs` applies it (and re-exports these types).

use serde::Deserialize;

/// What to do with a surface a host shows to its user only.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SurfaceMode {
    /// Tokenize PII (and neutralise token-shaped text), as on the surfaces the model reads.
    #[default]
    Scan,
    /// Leave PII as the server wrote it; token-shaped text still becomes `[LITERAL_N]`.
    Pass,
}

/// The `surfaces:` section: one setting per surface a host shows to its user rather than to
/// the model. Every other surface is always scanned.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct SurfacesConfig {
    /// `elicitation/create` requests (`message`, the form's titles, descriptions, options).
    pub elicitation: SurfaceMode,
    /// `notifications/progress` (`message`).
    pub progress: SurfaceMode,
}
