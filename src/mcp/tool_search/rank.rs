//! BM25 ranking of tool definitions.
//!
//! Each tool is one document: its name, title, description and the names and descriptions of its
//! parameters (nested `properties` and `items` included). Terms come from [`terms`]: identifiers
//! are split on `_`, `-`, `.`, `/`, spaces and camel case, lower-cased, a few English function
//! words and contraction fragments dropped, and each word reduced to its Snowball (Porter 2)
//! English stem, so `listDirectory`, `list_directory` and "listing the directories" share `list`
//! and `directori`, and "staged", "staging" and "stage" are one term.
//!
//! The name's terms count twice (a name is the shortest summary of what a tool does). A query is
//! read more loosely than a document ([`Index::search`]): words that name no task ("show", "get",
//! "give") weigh less, a word from the everyday vocabulary of files, version control, databases,
//! memory and time also looks for the words tool definitions use for the same thing ([`SYNONYMS`]:
//! "folder" looks for "directory", "forget" for "delete"), and a file name in the query ("notes.txt")
//! looks for "file"; such added terms weigh [`SYNONYM_WEIGHT`]. Scores are Okapi BM25 (`k1 = 1.2`,
//! `b = 0.75`) summed with those weights; ties break by tool name, so a ranking is the same on
//! every run and every machine. The index is built once per tool list, never per query.

use std::collections::HashMap;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use serde_json::Value;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// How deep parameter schemas are read.
const MAX_DEPTH: usize = 8;
/// The weight of a term a query did not say but implies (a synonym, `file` for a file name).
const SYNONYM_WEIGHT: f64 = 0.6;
/// The weight of a light verb of a query.
const LIGHT_WEIGHT: f64 = 0.3;

/// Words that say nothing about which tool is meant, and the fragments contractions leave
/// ("what's", "haven't").
const STOP: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "it", "its",
    "me", "my", "i", "we", "our", "you", "your", "what", "which", "how", "with", "from", "by",
    "this", "that", "these", "those", "can", "do", "does", "please", "some", "any", "at", "as",
    "into", "if", "want", "need", "would", "like", "s", "t", "d", "ll", "re", "ve", "m", "so",
    "there", "here", "was", "were", "been", "am", "let", "us", "just",
];

/// Verbs a request starts with that name no task of their own: kept, but light in a query.
const LIGHT: &[&str] = &[
    "show", "get", "give", "tell", "print", "display", "fetch", "return", "see", "look", "make",
    "use", "run", "put",
];

/// Everyday words of a request and the words tool definitions use for the same thing. Read on
/// the query side only; a word's stem is looked up, so plurals and verb forms match too.
pub(crate) const SYNONYMS: &[(&str, &str)] = &[
    // files and folders
    ("folder", "directory"),
    ("dir", "directory"),
    ("subfolder", "directory"),
    ("ls", "list directory"),
    ("mkdir", "create directory"),
    ("cat", "read file"),
    ("open", "read"),
    ("view", "read"),
    ("save", "write"),
    ("store", "write"),
    ("overwrite", "write"),
    ("patch", "edit"),
    ("modify", "edit"),
    ("change", "edit"),
    ("rename", "move"),
    ("relocate", "move"),
    ("mv", "move"),
    ("find", "search"),
    ("locate", "search"),
    ("lookup", "search"),
    ("grep", "search"),
    ("big", "size"),
    ("space", "size"),
    ("large", "size"),
    ("permitted", "allowed access"),
    ("permission", "allowed access"),
    ("sandbox", "allowed directory"),
    ("picture", "image"),
    ("photo", "image"),
    ("screenshot", "image media"),
    ("png", "image media"),
    ("jpg", "image media"),
    ("jpeg", "image media"),
    ("gif", "image media"),
    ("mp3", "audio media"),
    ("wav", "audio media"),
    ("zip", "compress gzip"),
    ("shrink", "compress"),
    ("metadata", "info"),
    ("nested", "tree recursive"),
    // removing
    ("remove", "delete"),
    ("rm", "delete"),
    ("erase", "delete"),
    ("drop", "delete"),
    ("forget", "delete"),
    ("discard", "delete"),
    // version control
    ("stage", "add"),
    ("unstage", "reset"),
    ("undo", "reset"),
    ("revert", "reset"),
    ("history", "log"),
    ("switch", "checkout"),
    ("modified", "status changes"),
    ("untracked", "status"),
    ("clean", "status"),
    ("compare", "diff differences"),
    ("snapshot", "commit"),
    // memory and knowledge graph
    ("remember", "memory create entities"),
    ("memorize", "memory create entities"),
    ("know", "memory"),
    ("fact", "observation"),
    ("note", "observation"),
    ("link", "relation"),
    ("connect", "relation"),
    ("relationship", "relation"),
    ("person", "entity"),
    ("people", "entity"),
    // databases
    ("db", "database"),
    ("sql", "query database"),
    ("column", "schema table"),
    ("row", "insert"),
    ("finding", "insight"),
    // time
    ("clock", "time"),
    ("hour", "time"),
    ("date", "time"),
    ("tz", "timezone"),
    ("zone", "timezone"),
    // arithmetic, environment
    ("plus", "sum"),
    ("total", "sum"),
    ("env", "environment variable"),
    ("repeat", "echo"),
];

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// [`SYNONYMS`] by the stem of the everyday word, each with the terms it adds.
static SYNONYM_TERMS: LazyLock<HashMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut map: HashMap<String, Vec<String>> = HashMap::new();
    for (word, means) in SYNONYMS {
        map.entry(STEMMER.stem(word).into_owned())
            .or_default()
            .extend(terms(means));
    }
    map
});

/// The words of `text`: split on everything not alphanumeric and on camel case, lower-cased.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .flat_map(split_camel)
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty())
}

/// Whether a whitespace-separated token of a query names a file (`notes.txt`, `*.log`).
fn is_file_name(token: &str) -> bool {
    let token = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '*');
    let Some((stem, ext)) = token.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && (1..=5).contains(&ext.len())
        && ext.starts_with(|c: char| c.is_ascii_alphabetic())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The search terms of `text`.
pub(crate) fn terms(text: &str) -> Vec<String> {
    words(text)
        .filter(|w| !STOP.contains(&w.as_str()))
        .map(|w| STEMMER.stem(&w).into_owned())
        .collect()
}

/// The weighted terms of a query: its own terms (light verbs at [`LIGHT_WEIGHT`]) and those its
/// words imply at [`SYNONYM_WEIGHT`]; a term said and implied keeps the larger weight.
fn query_terms(query: &str) -> Vec<(String, f64)> {
    let mut weights: HashMap<String, f64> = HashMap::new();
    let mut put = |term: String, weight: f64| {
        let w = weights.entry(term).or_insert(0.0);
        *w = w.max(weight);
    };
    if query.split_whitespace().any(is_file_name) {
        put("file".to_string(), SYNONYM_WEIGHT);
    }
    for word in words(query) {
        if STOP.contains(&word.as_str()) {
            continue;
        }
        let stem = STEMMER.stem(&word).into_owned();
        if let Some(implied) = SYNONYM_TERMS.get(&stem) {
            for term in implied {
                put(term.clone(), SYNONYM_WEIGHT);
            }
        }
        let weight = if LIGHT.contains(&word.as_str()) {
            LIGHT_WEIGHT
        } else {
            1.0
        };
        put(stem, weight);
    }
    let mut out: Vec<(String, f64)> = weights.into_iter().collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
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
    /// no term with the query (or with what it implies) are left out.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let query_terms = query_terms(query);
        let n = self.docs.len() as f64;
        let mut scored: Vec<(f64, usize)> = Vec::new();
        for (i, doc) in self.docs.iter().enumerate() {
            let mut score = 0.0;
            for (term, weight) in &query_terms {
                let Some(&tf) = doc.get(term) else { continue };
                let df = f64::from(self.df[term]);
                let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                let tf = f64::from(tf);
                let norm = K1 * (1.0 - B + B * self.lengths[i] / self.avg_len.max(1.0));
                score += weight * idf * tf * (K1 + 1.0) / (tf + norm);
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
        assert_eq!(terms("listDirectory"), terms("list_directory"));
        assert_eq!(
            terms("git.diff-staged/HTTPServer"),
            ["git", "diff", "stage", "http", "server"]
        );
        assert_eq!(terms("Listing the directories"), terms("list_directory"));
        assert_eq!(terms("what's staged"), terms("stage"));
    }

    #[test]
    fn queries_weigh_light_verbs_less_and_look_for_synonyms_and_files() {
        let q: HashMap<String, f64> = query_terms("show the folder of notes.txt")
            .into_iter()
            .collect();
        assert_eq!(q["show"], LIGHT_WEIGHT);
        assert_eq!(q[&terms("folder")[0]], 1.0);
        assert_eq!(q[&terms("directory")[0]], SYNONYM_WEIGHT);
        assert_eq!(q["file"], SYNONYM_WEIGHT);
        assert_eq!(q["note"], 1.0);
        // A term said outright keeps its full weight even when another word implies it.
        let q: HashMap<String, f64> = query_terms("forget delete").into_iter().collect();
        assert_eq!(q["delet"], 1.0);
        assert!(is_file_name("*.log") && is_file_name("README.md") && !is_file_name("v1.0"));
        assert!(!is_file_name("9.99") && !is_file_name("end."));
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
