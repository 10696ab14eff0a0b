//! Tool search: a gateway in front of many servers lists a few tools and one `search_tools`
//! tool instead of every definition (see `README.md` beside this file for why and for figures).
//!
//! - [`ToolSearchConfig`]: the `tool_search:` section (`mode`, thresholds, `pinned` globs).
//! - [`ToolSearch`]: one gateway session's state: the last full tool list (already scanned by
//!   the interceptor and filtered by the tool policy, so the index never holds a raw value or a
//!   denied tool), its BM25 index (`rank`), whether search is on, and the tools listed so far.
//!
//! This module knows MCP tool definitions (JSON values) and nothing of transports: the gateway
//! calls [`ToolSearch::update`] after each upstream listing, [`ToolSearch::list`] to answer
//! `tools/list`, and [`ToolSearch::call`] for a `tools/call` of [`SEARCH_TOOL`]. Calls to found
//! tools are routed by the gateway like any other call, through the same interceptor.

mod rank;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

pub use crate::config::tool_search::{SearchMode, ToolSearchConfig};
use crate::policy::{GlobError, NameGlob};

/// The name of the search tool (exposed names always hold `__`, so it cannot collide).
pub const SEARCH_TOOL: &str = "search_tools";
/// The default and the largest `limit` of one search.
const DEFAULT_LIMIT: usize = 5;
const MAX_LIMIT: usize = 50;
/// The longest query read, in bytes.
const MAX_QUERY: usize = 4096;

/// Why a `tool_search:` section is unusable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSearchError {
    /// A `pinned` entry is not a valid `server/tool` glob.
    #[error("tool_search.pinned: bad glob `{glob}`: {source}")]
    Pinned {
        /// The entry as written.
        glob: String,
        /// What is wrong with it.
        source: GlobError,
    },
}

/// One tool of the last full list.
#[derive(Debug)]
struct Entry {
    /// The gateway name.
    name: String,
    definition: Value,
    pinned: bool,
}

#[derive(Debug, Default)]
struct Catalog {
    entries: Vec<Entry>,
    index: rank::Index,
    on: bool,
}

impl Catalog {
    /// The catalog of a session whose search is off (every session before its first list):
    /// one per process, so an idle session holds no catalog of its own.
    fn off() -> Arc<Catalog> {
        static OFF: std::sync::LazyLock<Arc<Catalog>> =
            std::sync::LazyLock::new(|| Arc::new(Catalog::default()));
        OFF.clone()
    }
}

/// One gateway session's tool search (see the module documentation).
#[derive(Debug)]
pub struct ToolSearch {
    config: ToolSearchConfig,
    pinned: Vec<NameGlob>,
    catalog: Mutex<Arc<Catalog>>,
    /// Gateway names found by searches in this session: listed from then on.
    found: Mutex<BTreeSet<String>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a search call produced.
#[derive(Debug)]
pub struct SearchAnswer {
    /// The `tools/call` result (JSON text).
    pub result: String,
    /// The listed set grew: send `notifications/tools/list_changed`.
    pub list_changed: bool,
}

impl ToolSearch {
    /// Compiles the section; a bad `pinned` glob is an error naming it.
    pub fn new(config: &ToolSearchConfig) -> Result<ToolSearch, ToolSearchError> {
        let pinned = config
            .pinned
            .iter()
            .map(|g| {
                NameGlob::new(g).map_err(|source| ToolSearchError::Pinned {
                    glob: g.clone(),
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(ToolSearch {
            config: config.clone(),
            pinned,
            catalog: Mutex::new(Catalog::off()),
            found: Mutex::new(BTreeSet::new()),
        })
    }

    /// Whether the gateway should announce `tools.listChanged` (search may add tools).
    pub fn may_change_list(&self) -> bool {
        self.config.mode != SearchMode::Never
    }

    /// Whether search is on for the last list.
    pub fn is_on(&self) -> bool {
        lock(&self.catalog).on
    }

    /// Takes the gateway's full tool list (`tools`, with gateway names); `origin` gives a
    /// gateway name's server and the server's own tool name, for `pinned`.
    pub fn update<'a>(&self, tools: &[Value], origin: impl Fn(&str) -> Option<(&'a str, &'a str)>) {
        let bytes: usize = tools.iter().map(|t| t.to_string().len()).sum();
        let on = match self.config.mode {
            SearchMode::Always => true,
            SearchMode::Never => false,
            SearchMode::Auto => {
                tools.len() > self.config.max_listed_tools || bytes > self.config.max_listed_bytes
            }
        };
        if !on {
            // Nothing to search or to filter: an idle session keeps no copy of the list.
            *lock(&self.catalog) = Catalog::off();
            return;
        }
        let entries = tools
            .iter()
            .filter_map(|t| {
                let name = t.get("name")?.as_str()?.to_string();
                let pinned = origin(&name).is_some_and(|(server, tool)| {
                    self.pinned.iter().any(|g| g.matches(server, tool))
                });
                Some(Entry {
                    name,
                    definition: t.clone(),
                    pinned,
                })
            })
            .collect::<Vec<_>>();
        let definitions: Vec<Value> = entries.iter().map(|e| e.definition.clone()).collect();
        let index = if on {
            rank::Index::new(&definitions)
        } else {
            rank::Index::default()
        };
        *lock(&self.catalog) = Arc::new(Catalog { entries, index, on });
    }

    /// The `tools/list` answer for `tools` (the list just passed to [`ToolSearch::update`]):
    /// all of them when search is off; else the pinned and found ones, then [`SEARCH_TOOL`].
    pub fn list(&self, tools: Vec<Value>) -> Vec<Value> {
        let catalog = lock(&self.catalog).clone();
        if !catalog.on {
            return tools;
        }
        let found = lock(&self.found).clone();
        let mut out: Vec<Value> = catalog
            .entries
            .iter()
            .filter(|e| e.pinned || found.contains(&e.name))
            .map(|e| e.definition.clone())
            .collect();
        out.push(search_tool_definition());
        out
    }

    /// Whether a `tools/call` of `name` is a search (search is on and `name` is the tool).
    pub fn handles(&self, name: &str) -> bool {
        name == SEARCH_TOOL && self.is_on()
    }

    /// Runs a search for the `arguments` of a [`SEARCH_TOOL`] call.
    pub fn call(&self, arguments: &Value) -> SearchAnswer {
        let query = arguments.get("query").and_then(Value::as_str);
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => Some(DEFAULT_LIMIT),
            Some(v) => v.as_u64().map(|n| (n as usize).clamp(1, MAX_LIMIT)),
        };
        let (Some(query), Some(limit)) = (query, limit) else {
            return SearchAnswer {
                result: error_result(
                    "search_tools needs `query` (a string) and an optional `limit` (a positive integer)",
                ),
                list_changed: false,
            };
        };
        let query = truncate(query, MAX_QUERY);
        let catalog = lock(&self.catalog).clone();
        let hits: Vec<&Entry> = catalog
            .index
            .search(query, limit)
            .into_iter()
            .filter_map(|i| catalog.entries.get(i))
            .collect();
        let mut list_changed = false;
        {
            let mut found = lock(&self.found);
            for hit in &hits {
                if !hit.pinned {
                    list_changed |= found.insert(hit.name.clone());
                }
            }
        }
        let mut text = if hits.is_empty() {
            "No tool matches. Try other words.".to_string()
        } else {
            format!("{} tools found (call them by name):\n", hits.len())
        };
        for hit in &hits {
            text.push_str(&compact_line(&hit.definition));
        }
        let tools: Vec<&Value> = hits.iter().map(|h| &h.definition).collect();
        let result = json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"tools": tools},
        });
        SearchAnswer {
            result: result.to_string(),
            list_changed,
        }
    }
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn error_result(text: &str) -> String {
    json!({"content": [{"type": "text", "text": text}], "isError": true}).to_string()
}

/// `- name(arg, arg?): first line of the description`
fn compact_line(tool: &Value) -> String {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let required: Vec<&str> = tool
        .pointer("/inputSchema/required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let args: Vec<String> = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.keys()
                .map(|k| {
                    if required.contains(&k.as_str()) {
                        k.clone()
                    } else {
                        format!("{k}?")
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let first = truncate(description.lines().next().unwrap_or("").trim(), 200);
    format!("- {name}({}): {first}\n", args.join(", "))
}

/// The definition of [`SEARCH_TOOL`].
fn search_tool_definition() -> Value {
    json!({
        "name": SEARCH_TOOL,
        "title": "Search tools",
        "description": "Find tools by what they do. More tools exist than are listed: describe the task \
                        in a few words and call the tools found by their names. Found tools are added to the list.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What the tool should do, in a few words"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT,
                          "description": "How many tools to return"}
            },
            "required": ["query"]
        },
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<Value> {
        vec![
            json!({"name": "fs__read_text_file", "description": "Read a file as text",
                   "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}),
            json!({"name": "fs__list_directory", "description": "List a directory"}),
            json!({"name": "time__get_current_time", "description": "Current time in a timezone"}),
        ]
    }

    fn origin(name: &str) -> Option<(&'static str, &'static str)> {
        match name {
            "fs__read_text_file" => Some(("fs", "read_text_file")),
            "fs__list_directory" => Some(("fs", "list_directory")),
            "time__get_current_time" => Some(("time", "get_current_time")),
            _ => None,
        }
    }

    #[test]
    fn off_lists_everything_and_on_lists_pinned_found_and_search() {
        let mut config = ToolSearchConfig::default();
        let search = ToolSearch::new(&config).unwrap();
        search.update(&tools(), origin);
        assert!(!search.is_on());
        assert_eq!(search.list(tools()).len(), 3);

        config.mode = SearchMode::Always;
        config.pinned = vec!["fs/read_*".into()];
        let search = ToolSearch::new(&config).unwrap();
        search.update(&tools(), origin);
        let names = |l: Vec<Value>| {
            l.iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(search.list(tools())),
            ["fs__read_text_file", SEARCH_TOOL]
        );
        let answer = search.call(&json!({"query": "current time", "limit": 1}));
        assert!(answer.list_changed);
        let v: Value = serde_json::from_str(&answer.result).unwrap();
        assert_eq!(
            v["structuredContent"]["tools"][0]["name"],
            "time__get_current_time"
        );
        assert!(
            v["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("- time__get_current_time(): Current time")
        );
        assert_eq!(
            names(search.list(tools())),
            ["fs__read_text_file", "time__get_current_time", SEARCH_TOOL]
        );
        assert!(!search.call(&json!({"query": "current time"})).list_changed);
        let bad: Value = serde_json::from_str(&search.call(&json!({"limit": 2})).result).unwrap();
        assert_eq!(bad["isError"], true);
    }

    #[test]
    fn auto_switches_on_thresholds() {
        let config = ToolSearchConfig {
            max_listed_tools: 2,
            ..Default::default()
        };
        let search = ToolSearch::new(&config).unwrap();
        search.update(&tools(), origin);
        assert!(search.is_on());
        search.update(&tools()[..2], origin);
        assert!(!search.is_on());
        let config = ToolSearchConfig {
            max_listed_bytes: 100,
            ..Default::default()
        };
        let search = ToolSearch::new(&config).unwrap();
        search.update(&tools(), origin);
        assert!(search.is_on());
    }

    #[test]
    fn bad_pinned_globs_are_named() {
        let config = ToolSearchConfig {
            pinned: vec!["/x".into()],
            ..Default::default()
        };
        let err = ToolSearch::new(&config).unwrap_err().to_string();
        assert!(
            err.starts_with("tool_search.pinned: bad glob `/x`"),
            "{err}"
        );
    }
}
