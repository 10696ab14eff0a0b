//! The `restore:` section: how restored values are written into the syntax of the argument
//! they land in (SQL literals, shell words, URL components). The rules themselves are in
//! `mcp::restore`; these are the types the file is read into, here so that `config` needs
//! nothing from `mcp`.

use serde::Deserialize;

use crate::glob::{NameGlob, PathGlob};

/// The `restore:` section of the configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RestoreConfig {
    /// Recognise SQL arguments by their name and text (see the module doc).
    pub sql_heuristic: bool,
    /// Arguments of named tools with a declared syntax, first match wins.
    pub contexts: Vec<ContextConfig>,
}

impl Default for RestoreConfig {
    fn default() -> Self {
        RestoreConfig {
            sql_heuristic: true,
            contexts: Vec::new(),
        }
    }
}

/// One `restore.contexts` entry, its globs compiled as it is read (a bad glob is an error at
/// its line in the file).
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "ContextFields")]
pub struct ContextConfig {
    /// A `server/tool` glob (`sqlite/*query*`, `shell`).
    pub tool: NameGlob,
    /// An argument-path glob (`query`, `options.sql`, `**`).
    pub argument: PathGlob,
    /// The argument's syntax.
    pub syntax: Syntax,
}

/// A `restore.contexts` entry as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextFields {
    tool: String,
    argument: String,
    syntax: Syntax,
}

impl TryFrom<ContextFields> for ContextConfig {
    type Error = String;

    fn try_from(f: ContextFields) -> Result<Self, String> {
        Ok(ContextConfig {
            tool: NameGlob::new(&f.tool).map_err(|e| format!("restore context `tool`: {e}"))?,
            argument: PathGlob::new(&f.argument)
                .map_err(|e| format!("restore context `argument`: {e}"))?,
            syntax: f.syntax,
        })
    }
}

/// The syntax of an argument's text.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Syntax {
    /// A SQL statement.
    Sql,
    /// A POSIX shell command line.
    Shell,
    /// A URL or URL component.
    Url,
    /// Text with no syntax of its own.
    Plain,
}

impl Syntax {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Syntax::Sql => "SQL",
            Syntax::Shell => "shell",
            Syntax::Url => "URL",
            Syntax::Plain => "plain",
        }
    }
}
