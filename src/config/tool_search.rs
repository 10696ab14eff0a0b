//! The `tool_search:` section: when a gateway lists only pinned tools and a `search_tools`
//! tool instead of every tool. A configuration type, so it lives with the configuration;
//! `mcp/tool_search` applies it (and re-exports these types).

use serde::Deserialize;

/// When `tools/list` is replaced by pinned tools plus [`SEARCH_TOOL`](crate::mcp::tool_search::SEARCH_TOOL).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// When the tools number more than `max_listed_tools` or their definitions weigh more than
    /// `max_listed_bytes`.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never: every tool is listed.
    Never,
}

/// The `tool_search:` section.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolSearchConfig {
    /// auto | always | never.
    pub mode: SearchMode,
    /// Auto turns search on above this many tools in total.
    pub max_listed_tools: usize,
    /// ... or above this many bytes of tool definitions (compact JSON).
    pub max_listed_bytes: usize,
    /// `server/tool` globs (the policy's dialect) always listed in full.
    pub pinned: Vec<String>,
}

impl Default for ToolSearchConfig {
    fn default() -> Self {
        ToolSearchConfig {
            mode: SearchMode::Auto,
            max_listed_tools: 40,
            max_listed_bytes: 40_000,
            pinned: Vec::new(),
        }
    }
}
