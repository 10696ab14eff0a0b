//! BM25 ranking of tool definitions.
//!
//! Each tool is one document: its name, title, description and the names and descriptions of its
//! parameters (nested `properties` and `items` included). Terms come from [`terms`]: identifiers
//! are split on `_`, `-`, `.`, `/`, spaces and camel case, lower-cased, a few English function
//! words dropped and a plural `s` stripped, so `listDirectory`, `list_directory` and "list the
//! directories" share `list` and `directory`.
//!
//! The name's terms count twice (a name is the shortest summary of what a tool does). Scores are
//! plain Okapi BM25 (`k1 = 1.2`, `b = 0.75`); ties break by tool name, so a ranking is the same
//! on every run and every machine. The index is built once per tool list, never per query.

use std::collections::HashMap;

use serde_json::Value;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// How deep parameter schemas are read.
const MAX_DEPTH: usize = 8;

/// Words that say nothing about which tool is meant.
const STOP: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "it", "its",
    "me", "my", "i", "we", "our", "you", "your", "what", "which", "how", "with", "from", "by",
    "this", "that", "these", "those", "can", "do", "does", "please", "some", "any", "at", "as",
    "into", "if", "want", "need", "would", "like",
];

/// The search terms of `text`.
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        for part in split_camel(word) {
            let lower = part.to_lowercase();
            if lower.is_empty() || STOP.contains(&lower.as_str()) {
                continue;
            }
            out.push(stem(lower));
        }
    }
    out
}

/// `readTextFile` → `read`, `Text`, `File`; `HTTPServer` → `HTTP`, `Server`; digits stay with
/// the letters before them.
fn split_camel(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary =
            c.is_uppercase() && (prev.is_lowercase() || (prev.is_uppercase() && next_lower));
        if boundary {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    if start < word.len() {
        parts.push(&word[start..]);
    }
    parts
}

/// A light English stemmer: plural endings only (`directories` → `directory`, `files` →
/// `file`, `entities` → `entity`), enough to match a question to a name.
fn stem(mut word: String) -> String {
    if word.len() > 4 && word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if word.len() > 4
        && (word.ends_with("ches") || word.ends_with("shes") || word.ends_with("sses"))
    {
        word.truncate(word.len() - 2);
    } else if word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
    {
        word.pop();
    }
    word
}

/// The text BM25 reads for one tool definition: the name twice, then title, description and
/// parameters.
fn document(tool: &Value) -> Vec<String> {
    let mut text = String::new();
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    text.push_str(name);
    text.push(' ');
    text.push_str(name);
    for title in [tool.get("title"), tool.pointer("/annotations/title")]
        .into_iter()
        .flatten()
    {
        if let Some(t) = title.as_str() {
            text.push(' ');
            text.push_str(t);
        }
    }
    if let Some(d) = tool.get("description").and_then(Value::as_str) {
        text.push(' ');
        text.push_str(d);
    }
    if let Some(schema) = tool.get("inputSchema") {
        schema_text(schema, &mut text, 0);
    }
    terms(&text)
}

fn schema_text(schema: &Value, text: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            text.push(' ');
            text.push_str(name);
            for key in ["title", "description"] {
                if let Some(d) = prop.get(key).and_then(Value::as_str) {
                    text.push(' ');
                    text.push_str(d);
                }
            }
            schema_text(prop, text, depth + 1);
        }
    }
    if let Some(items) = schema.get("items") {
        schema_text(items, text, depth + 1);
    }
}

/// A BM25 index over a list of tool definitions.
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Per document: term → count.
    docs: Vec<HashMap<String, u32>>,
    /// Per document: number of terms.
    lengths: Vec<f64>,
    /// Per document: the tool's name (the tie-break).
    names: Vec<String>,
    /// Term → number of documents holding it.
    df: HashMap<String, u32>,
    avg_len: f64,
}

impl Index {
    /// Indexes `tools` (MCP tool definitions) in order.
    pub(crate) fn new(tools: &[Value]) -> Index {
        let mut index = Index::default();
        for tool in tools {
            let words = document(tool);
            let mut counts: HashMap<String, u32> = HashMap::new();
            for w in words.iter() {
                *counts.entry(w.clone()).or_default() += 1;
            }
            for term in counts.keys() {
                *index.df.entry(term.clone()).or_default() += 1;
            }
            index.lengths.push(words.len() as f64);
            index.docs.push(counts);
            index.names.push(
                tool.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            );
        }
        let total: f64 = index.lengths.iter().sum();
        index.avg_len = if index.docs.is_empty() {
            0.0
        } else {
            total / index.docs.len() as f64
        };
        index
    }

    /// The positions of the best `limit` documents for `query`, best first; documents sharing
    /// no term with the query are left out.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut query_terms = terms(query);
        query_terms.sort();
        query_terms.dedup();
        let n = self.docs.len() as f64;
        let mut scored: Vec<(f64, usize)> = Vec::new();
        for (i, doc) in self.docs.iter().enumerate() {
            let mut score = 0.0;
            for term in &query_terms {
                let Some(&tf) = doc.get(term) else { continue };
                let df = f64::from(self.df[term]);
                let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                let tf = f64::from(tf);
                let norm = K1 * (1.0 - B + B * self.lengths[i] / self.avg_len.max(1.0));
                score += idf * tf * (K1 + 1.0) / (tf + norm);
            }
            if score > 0.0 {
                scored.push((score, i));
            }
        }
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| self.names[a.1].cmp(&self.names[b.1]))
        });
        scored.into_iter().take(limit).map(|(_, i)| i).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identifiers_split_on_separators_and_camel_case() {
        assert_eq!(terms("fs__read_text_file"), ["fs", "read", "text", "file"]);
        assert_eq!(terms("listDirectory"), ["list", "directory"]);
        assert_eq!(
            terms("git.diff-staged/HTTPServer"),
            ["git", "diff", "staged", "http", "server"]
        );
        assert_eq!(terms("List the directories"), ["list", "directory"]);
    }

    #[test]
    fn ranking_prefers_matching_names_and_breaks_ties_by_name() {
        let tools = [
            json!({"name": "b__echo", "description": "Echo back"}),
            json!({"name": "a__echo", "description": "Echo back"}),
            json!({"name": "fs__list_directory", "description": "List a directory",
                   "inputSchema": {"properties": {"path": {"description": "Folder path"}}}}),
            json!({"name": "time__get_current_time", "description": "Current time in a timezone"}),
        ];
        let index = Index::new(&tools);
        assert_eq!(index.search("what time is it in Tokyo", 5), [3]);
        assert_eq!(
            index.search("show the folder contents of directories", 5),
            [2]
        );
        assert_eq!(index.search("echo", 5), [1, 0]);
        assert!(index.search("nothing matches zebra", 5).is_empty());
        assert_eq!(index.search("echo", 1), [1]);
    }
}
