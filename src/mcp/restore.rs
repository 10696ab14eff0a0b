//! Syntax-safe restore: a restored value never changes the syntax of the argument it lands in.
//!
//! The model cannot escape what it cannot see: it writes `'Call [NAME_1] back'` into a SQL
//! statement, and the value is `O'Brien`. Restored as is, the quote ends the literal; the write
//! fails (or worse, the rest of the value is SQL). So where the layer knows the syntax of the
//! argument a token sits in, the value is escaped for the spot the token occupies:
//!
//! - **JSON**: always (the walker encodes every restored value for the string literal it is in).
//! - **SQL** (standard quoting, as SQLite and PostgreSQL read it): the statement is scanned up to
//!   the token for its quote state. Inside a single-quoted literal, quotes are doubled
//!   (`'Call O''Brien back'`); inside a double-quoted (or back-quoted) identifier, those quotes
//!   are doubled. A token outside any literal becomes one: `WHERE name = [NAME_1]` is restored
//!   as `WHERE name = 'O''Brien'` (a personal value is data, never SQL text). In a `--` comment a
//!   value with a line break, and in a `/* */` comment one holding `*/`, is refused (the call is
//!   denied, naming the token and the argument, never the value). Backslashes are not escape
//!   characters (MySQL's default `'\'` handling is not assumed).
//! - **shell** (POSIX `sh` words): inside single quotes a quote becomes `'\''`; inside double
//!   quotes `\`, `"`, `$` and `` ` `` get a backslash; outside quotes a value with anything but
//!   letters, digits and `@%+=:,./_-` is single-quoted.
//! - **url** (a URL component): the value is percent-encoded (everything but the unreserved
//!   `A-Z a-z 0-9 - . _ ~`), so `[EMAIL_1]` in `?to=[EMAIL_1]&x=1` is restored as
//!   `maria%40example.com` and a `&` in a value cannot start a parameter.
//! - **plain**: no escaping beyond JSON (turns the SQL heuristic off for an argument).
//!
//! Which arguments have which syntax: the `restore.contexts` of the configuration, first match
//! wins (`{tool: "sqlite/*", argument: query, syntax: sql}`: a `server/tool` glob and an
//! argument-path glob, as in `flows`); then, unless `restore.sql_heuristic` is off, an argument
//! is SQL when its name (the last key of its path) is `sql`, `query`, `statement`, `stmt` or
//! ends in `_sql` or `_query`, or the tool's name holds `sql`, `query` or `exec`, **and** its text
//! starts (after spaces, comments and `(`) with a SQL keyword (`SELECT`, `INSERT`, `UPDATE`,
//! `DELETE`, `WITH`, `CREATE`, `ALTER`, `DROP`, `REPLACE`, `PRAGMA`, `EXPLAIN`, `VALUES`,
//! `BEGIN`, `MERGE`, `UPSERT`). A search tool's `query: "[NAME_1] biography"` is therefore not
//! SQL. Only string arguments are scanned; a token inside a JSON document embedded in a string
//! is only JSON-escaped.

use std::borrow::Cow;

use serde_json::Value;

use crate::glob::{NameGlob, PathGlob};
use crate::walk::FoundTokenAt;

pub use crate::config::restore::{ContextConfig, RestoreConfig, Syntax};

/// The compiled `restore:` section.
#[derive(Debug)]
pub struct RestoreRules {
    sql_heuristic: bool,
    contexts: Vec<(NameGlob, PathGlob, Syntax)>,
}

impl Default for RestoreRules {
    fn default() -> Self {
        RestoreRules {
            sql_heuristic: true,
            contexts: Vec::new(),
        }
    }
}

/// What the layer knows of an argument's syntax before reading its text.
enum Known {
    /// Declared by the configuration.
    Declared(Syntax),
    /// SQL if its text reads as SQL.
    MaybeSql,
}

impl RestoreRules {
    /// The rules of a `restore:` section.
    pub fn new(config: &RestoreConfig) -> RestoreRules {
        RestoreRules {
            sql_heuristic: config.sql_heuristic,
            contexts: config
                .contexts
                .iter()
                .map(|c| (c.tool.clone(), c.argument.clone(), c.syntax))
                .collect(),
        }
    }

    fn known(&self, server: &str, tool: &str, path: &str) -> Option<Known> {
        if let Some((_, _, syntax)) = self
            .contexts
            .iter()
            .find(|(t, a, _)| t.matches(server, tool) && a.matches(path))
        {
            return Some(Known::Declared(*syntax));
        }
        if !self.sql_heuristic {
            return None;
        }
        let name = path.rsplit('.').next().unwrap_or(path).to_ascii_lowercase();
        let tool = tool.to_ascii_lowercase();
        let sql_name = matches!(name.as_str(), "sql" | "query" | "statement" | "stmt")
            || name.ends_with("_sql")
            || name.ends_with("_query");
        let sql_tool = tool.contains("sql") || tool.contains("query") || tool.contains("exec");
        (sql_name || sql_tool).then_some(Known::MaybeSql)
    }

    /// Escapes, in place, the restored values (`restored[i]`) of the token occurrences `slots`
    /// of the tool call `server`/`tool` whose arguments are `args`, for the syntax of the
    /// argument each lands in. `Err` is the reason to deny the call (token and argument names,
    /// never a value).
    pub(crate) fn make_safe(
        &self,
        server: &str,
        tool: &str,
        args: &str,
        slots: &[FoundTokenAt],
        values: &mut [Cow<'_, str>],
        restored: &[bool],
    ) -> Result<(), String> {
        let mut doc: Option<Value> = None;
        let mut done: Vec<&str> = Vec::new();
        for (i, slot) in slots.iter().enumerate() {
            let path = slot.path.as_str();
            if !restored[i] || done.contains(&path) {
                continue;
            }
            done.push(path);
            let Some(known) = self.known(server, tool, path) else {
                continue;
            };
            if matches!(known, Known::Declared(Syntax::Plain)) {
                continue;
            }
            let doc = match &mut doc {
                Some(doc) => doc,
                None => doc.insert(serde_json::from_str(args).map_err(|_| {
                    format!("cannot read the arguments to restore `{path}` safely")
                })?),
            };
            let text = string_at(doc, path);
            let syntax = match (known, text) {
                (Known::Declared(s), Some(_)) => s,
                (Known::Declared(s), None) => {
                    return Err(format!(
                        "argument `{path}` is declared {} but is not a string argument: not restored",
                        s.as_str()
                    ));
                }
                (Known::MaybeSql, Some(t)) if reads_as_sql(t) => Syntax::Sql,
                (Known::MaybeSql, _) => continue,
            };
            let Some(text) = text else { continue };
            let here: Vec<usize> = (0..slots.len())
                .filter(|&j| slots[j].path == slot.path)
                .collect();
            let found: Vec<_> = crate::token::find_tokens(text).collect();
            let same = found.len() == here.len()
                && found
                    .iter()
                    .zip(&here)
                    .all(|(f, &j)| f.to_token() == slots[j].token);
            if !same {
                return Err(format!(
                    "cannot locate the tokens of {} argument `{path}`: not restored",
                    syntax.as_str()
                ));
            }
            for (f, &j) in found.iter().zip(&here) {
                if !restored[j] {
                    continue;
                }
                let safe = escape(syntax, text, f.start, &values[j]).map_err(|why| {
                    format!(
                        "{} in {} argument `{path}` {why}: not restored",
                        slots[j].token,
                        syntax.as_str()
                    )
                })?;
                if let Cow::Owned(s) = safe {
                    values[j] = Cow::Owned(s);
                }
            }
        }
        Ok(())
    }
}

/// The string at the dotted `path` of `doc` (keys and array indices), if there is one.
fn string_at<'d>(doc: &'d Value, path: &str) -> Option<&'d str> {
    let mut at = doc;
    if !path.is_empty() {
        for seg in path.split('.') {
            at = match at {
                Value::Object(map) => map.get(seg)?,
                Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
    }
    at.as_str()
}

/// SQL keywords a statement starts with.
const SQL_STARTS: &[&str] = &[
    "select", "insert", "update", "delete", "with", "create", "alter", "drop", "replace", "pragma",
    "explain", "values", "begin", "merge", "upsert",
];

/// Whether `text` starts (after spaces, comments and `(`) with a SQL keyword.
fn reads_as_sql(text: &str) -> bool {
    let mut t = text;
    loop {
        t = t.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
        if let Some(rest) = t.strip_prefix("--") {
            t = rest.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(rest) = t.strip_prefix("/*") {
            t = rest.split_once("*/").map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    let word: String = t
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    SQL_STARTS.contains(&word.as_str())
}

/// `value` escaped for the spot at byte `at` of `text` in `syntax`, or why it cannot be.
fn escape<'v>(
    syntax: Syntax,
    text: &str,
    at: usize,
    value: &'v str,
) -> Result<Cow<'v, str>, &'static str> {
    match syntax {
        Syntax::Plain => Ok(Cow::Borrowed(value)),
        Syntax::Sql => sql(sql_state(&text[..at]), value),
        Syntax::Shell => Ok(shell(shell_state(&text[..at]), value)),
        Syntax::Url => Ok(percent_encode(value)),
    }
}

/// Where a spot of a SQL statement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SqlState {
    Code,
    /// Inside `'...'`.
    Literal,
    /// Inside `"..."`.
    Quoted,
    /// Inside `` `...` ``.
    BackQuoted,
    /// After `--`.
    LineComment,
    /// Inside `/* */`.
    BlockComment,
}

/// The SQL quote state at the end of `before`.
fn sql_state(before: &str) -> SqlState {
    let b = before.as_bytes();
    let mut state = SqlState::Code;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match state {
            SqlState::Code => match (c, next) {
                (b'\'', _) => state = SqlState::Literal,
                (b'"', _) => state = SqlState::Quoted,
                (b'`', _) => state = SqlState::BackQuoted,
                (b'-', Some(b'-')) => {
                    state = SqlState::LineComment;
                    i += 1;
                }
                (b'/', Some(b'*')) => {
                    state = SqlState::BlockComment;
                    i += 1;
                }
                _ => {}
            },
            SqlState::Literal | SqlState::Quoted | SqlState::BackQuoted => {
                let quote = match state {
                    SqlState::Literal => b'\'',
                    SqlState::Quoted => b'"',
                    _ => b'`',
                };
                if c == quote {
                    if next == Some(quote) {
                        i += 1;
                    } else {
                        state = SqlState::Code;
                    }
                }
            }
            SqlState::LineComment => {
                if c == b'\n' {
                    state = SqlState::Code;
                }
            }
            SqlState::BlockComment => {
                if c == b'*' && next == Some(b'/') {
                    state = SqlState::Code;
                    i += 1;
                }
            }
        }
        i += 1;
    }
    state
}

fn sql(state: SqlState, value: &str) -> Result<Cow<'_, str>, &'static str> {
    let doubled = |q: char| {
        if value.contains(q) {
            Cow::Owned(value.replace(q, &format!("{q}{q}")))
        } else {
            Cow::Borrowed(value)
        }
    };
    match state {
        SqlState::Literal => Ok(doubled('\'')),
        SqlState::Quoted => Ok(doubled('"')),
        SqlState::BackQuoted => Ok(doubled('`')),
        SqlState::Code => Ok(Cow::Owned(format!("'{}'", value.replace('\'', "''")))),
        SqlState::LineComment if value.contains(['\n', '\r']) => {
            Err("sits in a comment and its value holds a line break")
        }
        SqlState::BlockComment if value.contains("*/") => {
            Err("sits in a comment and its value would end it")
        }
        SqlState::LineComment | SqlState::BlockComment => Ok(Cow::Borrowed(value)),
    }
}

/// Where a spot of a shell command line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShellState {
    Word,
    Single,
    Double,
}

fn shell_state(before: &str) -> ShellState {
    let b = before.as_bytes();
    let mut state = ShellState::Word;
    let mut i = 0;
    while i < b.len() {
        match (state, b[i]) {
            (ShellState::Word, b'\\') | (ShellState::Double, b'\\') => i += 1,
            (ShellState::Word, b'\'') => state = ShellState::Single,
            (ShellState::Word, b'"') => state = ShellState::Double,
            (ShellState::Single, b'\'') | (ShellState::Double, b'"') => state = ShellState::Word,
            _ => {}
        }
        i += 1;
    }
    state
}

fn shell(state: ShellState, value: &str) -> Cow<'_, str> {
    match state {
        ShellState::Single => {
            if value.contains('\'') {
                Cow::Owned(value.replace('\'', "'\\''"))
            } else {
                Cow::Borrowed(value)
            }
        }
        ShellState::Double => {
            if value.contains(['\\', '"', '$', '`']) {
                let mut out = String::with_capacity(value.len() + 4);
                for c in value.chars() {
                    if matches!(c, '\\' | '"' | '$' | '`') {
                        out.push('\\');
                    }
                    out.push(c);
                }
                Cow::Owned(out)
            } else {
                Cow::Borrowed(value)
            }
        }
        ShellState::Word => {
            let plain = !value.is_empty()
                && value
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"@%+=:,./_-".contains(&b));
            if plain {
                Cow::Borrowed(value)
            } else {
                Cow::Owned(format!("'{}'", value.replace('\'', "'\\''")))
            }
        }
    }
}

/// `value` percent-encoded but for the unreserved characters of RFC 3986.
fn percent_encode(value: &str) -> Cow<'_, str> {
    let keep = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    if value.bytes().all(keep) {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() * 3);
    for b in value.bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::Token;

    fn slots(doc: &str) -> Vec<FoundTokenAt> {
        crate::walk::scan_tokens_json(doc).unwrap().slots
    }

    /// Restores every token of `args` (a call of `server/tool`) with `values`, escaped.
    fn restore(
        rules: &RestoreRules,
        tool: &str,
        args: &str,
        values: &[&str],
    ) -> Result<serde_json::Value, String> {
        let found = crate::walk::scan_tokens_json(args).unwrap();
        let mut v: Vec<Cow<'_, str>> = values.iter().map(|s| Cow::Borrowed(*s)).collect();
        let restored = vec![true; v.len()];
        let (server, tool) = tool.split_once('/').unwrap();
        rules.make_safe(server, tool, args, &found.slots, &mut v, &restored)?;
        let out = crate::walk::apply(args, &found, &v).unwrap();
        Ok(serde_json::from_str(&out).unwrap())
    }

    #[test]
    fn sql_literals_get_their_quotes_doubled() {
        let rules = RestoreRules::default();
        let args = r#"{"query":"INSERT INTO notes(body, who) VALUES ('Call [NAME_1] back', [NAME_1]) -- [NAME_2]"}"#;
        let out = restore(
            &rules,
            "sqlite/write_query",
            args,
            &["O'Brien", "O'Brien", "Ann"],
        )
        .unwrap();
        assert_eq!(
            out["query"],
            "INSERT INTO notes(body, who) VALUES ('Call O''Brien back', 'O''Brien') -- Ann"
        );
        // Identifiers and `''` inside a literal keep the state right.
        assert_eq!(sql_state("SELECT 'it''s "), SqlState::Literal);
        assert_eq!(sql_state("SELECT 'it''s' "), SqlState::Code);
        assert_eq!(sql_state("SELECT \"a'b\" "), SqlState::Code);
        assert_eq!(sql_state("/* ' */ SELECT "), SqlState::Code);
    }

    #[test]
    fn a_line_break_into_a_sql_comment_is_refused() {
        let rules = RestoreRules::default();
        let args = r#"{"sql":"SELECT 1 -- for [NAME_1]"}"#;
        let err = restore(&rules, "db/run", args, &["x\nDROP TABLE t"]).unwrap_err();
        assert_eq!(
            err,
            "[NAME_1] in SQL argument `sql` sits in a comment and its value holds a line break: not restored"
        );
        let args = r#"{"sql":"SELECT 1 /* [NAME_1] */"}"#;
        assert!(restore(&rules, "db/run", args, &["a */ DROP"]).is_err());
    }

    #[test]
    fn the_sql_heuristic_needs_a_name_and_a_statement() {
        let rules = RestoreRules::default();
        // A search tool's query is not SQL.
        let out = restore(
            &rules,
            "web/search",
            r#"{"query":"[NAME_1] biography"}"#,
            &["O'Brien"],
        )
        .unwrap();
        assert_eq!(out["query"], "O'Brien biography");
        // A tool named for SQL, any argument that reads as a statement.
        let out = restore(
            &rules,
            "db/execute",
            r#"{"text":"  (select '[NAME_1]')"}"#,
            &["O'Brien"],
        )
        .unwrap();
        assert_eq!(out["text"], "  (select 'O''Brien')");
        // Off: restored as is.
        let off = RestoreRules::new(&RestoreConfig {
            sql_heuristic: false,
            contexts: vec![],
        });
        let out = restore(
            &off,
            "db/execute",
            r#"{"sql":"SELECT '[NAME_1]'"}"#,
            &["O'Brien"],
        )
        .unwrap();
        assert_eq!(out["sql"], "SELECT 'O'Brien'");
    }

    #[test]
    fn configured_contexts_come_first() {
        let config: RestoreConfig = serde_saphyr::from_str(
            "sql_heuristic: true\ncontexts:\n  - {tool: \"shell/*\", argument: command, syntax: shell}\n  - {tool: \"http/*\", argument: url, syntax: url}\n  - {tool: \"db/*\", argument: query, syntax: plain}\n  - {tool: \"notes/*\", argument: \"**\", syntax: sql}\n",
        )
        .unwrap();
        let rules = RestoreRules::new(&config);
        let out = restore(
            &rules,
            "shell/run",
            r#"{"command":"echo [NAME_1] '[NAME_1]' \"[NAME_1]\" [EMAIL_1]"}"#,
            &["O'Brien $HOME", "O'Brien $HOME", "O'Brien $HOME", "a@x.io"],
        )
        .unwrap();
        assert_eq!(
            out["command"],
            r#"echo 'O'\''Brien $HOME' 'O'\''Brien $HOME' "O'Brien \$HOME" a@x.io"#
        );
        let out = restore(
            &rules,
            "http/get",
            r#"{"url":"https://x.io/u?to=[EMAIL_1]&n=1"}"#,
            &["a&b@x.io"],
        )
        .unwrap();
        assert_eq!(out["url"], "https://x.io/u?to=a%26b%40x.io&n=1");
        let out = restore(
            &rules,
            "db/q",
            r#"{"query":"SELECT '[NAME_1]'"}"#,
            &["O'Brien"],
        )
        .unwrap();
        assert_eq!(out["query"], "SELECT 'O'Brien'");
        let out = restore(
            &rules,
            "notes/add",
            r#"{"rows":["'[NAME_1]'"]}"#,
            &["O'Brien"],
        )
        .unwrap();
        assert_eq!(out["rows"][0], "'O''Brien'");
        // A declared argument that is not a string is refused.
        let err = restore(
            &rules,
            "notes/add",
            r#"{"rows":{"a":"{\"b\":\"[NAME_1]\"}"}}"#,
            &["x"],
        )
        .unwrap_err();
        assert!(err.contains("not a string argument"), "{err}");
    }

    #[test]
    fn bad_config_is_an_error() {
        let bad = [
            "contexts:\n  - {tool: /x, argument: q, syntax: sql}\n",
            "contexts:\n  - {tool: a, argument: q.., syntax: sql}\n",
            "contexts:\n  - {tool: a, argument: q, syntax: xml}\n",
            "contexts:\n  - {tool: a, argument: q, syntax: sql, extra: 1}\n",
            "contexts:\n  - {tool: a, syntax: sql}\n",
            "sql_heuristics: true\n",
        ];
        for yaml in bad {
            assert!(
                serde_saphyr::from_str::<RestoreConfig>(yaml).is_err(),
                "{yaml}"
            );
        }
        let err = crate::config::Config::parse(
            "restore:\n  contexts:\n    - {tool: /x, argument: q, syntax: sql}\n",
            std::path::Path::new("x.yaml"),
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("x.yaml:3:"), "{err}");
    }

    #[test]
    fn kept_tokens_are_not_touched() {
        let rules = RestoreRules::default();
        let args = r#"{"query":"SELECT '[NAME_1]', [NAME_2]"}"#;
        let found = slots(args);
        let mut v: Vec<Cow<'_, str>> = vec![Cow::Borrowed("O'Brien"), Cow::Borrowed("[NAME_2]")];
        rules
            .make_safe("db", "read_query", args, &found, &mut v, &[true, false])
            .unwrap();
        assert_eq!(v[0], "O''Brien");
        assert_eq!(v[1], "[NAME_2]");
        assert_eq!(found[1].token, Token::new(crate::Kind::Name, 2));
    }
}
