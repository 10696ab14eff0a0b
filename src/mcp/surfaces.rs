//! Which members of which server → host message are scanned, and which pass as identifiers.
//!
//! Tool results are not the only text a server puts in front of the model: hosts show tool
//! descriptions and titles, prompt and resource lists, completion values and `initialize`
//! instructions to the model, and progress messages and elicitation forms to the user. Every one
//! of these is a `Surface` here, and the interceptor scans each the same way (see
//! `interceptor/surface_scan.rs`):
//!
//! 1. **Token-shaped text always becomes `[LITERAL_N]`**, on every surface and in every member,
//!    identifiers included, whatever the settings say. A server that writes `[EMAIL_1]` into a
//!    tool description (or names a prompt `[EMAIL_1]`) must not get the model to copy a token
//!    the layer minted for *another* server's value back into its own call: the model sees a
//!    fresh `[LITERAL_N]`, which restores to the literal text `[EMAIL_1]` and nothing else.
//! 2. **PII is tokenized** in every member except the identifiers each surface lists
//!    (`Surface::class`): names the host sends back verbatim (tool names, prompt and
//!    argument names), protocol fields that must stay exact (`protocolVersion`, ids, cursors,
//!    progress tokens), and icon sources (often `data:` URIs, base64 a detector must not read).
//!    Those get step 1 only. Display names under a `name` key (a resource's, a template's, the
//!    server's) are searched as free text: as the value of a `name` key the detector would read
//!    any label as a person's name.
//! 3. Surfaces a host shows to its **user only** (`Surface::Elicitation`, `Surface::Progress`)
//!    follow one setting each ([`SurfacesConfig`]): `scan` (the default, fail closed) or `pass`
//!    (step 1 only, so the user reads the real values and still cannot be handed another
//!    server's token to type back).
//!
//! # Schemas, enums, URIs: what restores
//!
//! Object *keys* (an `inputSchema`'s `properties` names, `required` entries, capability names)
//! are scanned as the engine scans keys everywhere: an ordinary key is never PII and stays as it
//! is; a key that *is* PII (a property named after an email address) becomes a token, and so
//! does the same value in `required` (one value, one token per session). That is safe because
//! every outbound path restores keys as well as values: the model's arguments
//! `{"[EMAIL_1]": ...}` reach the server as the real key.
//!
//! String values inside schemas (`enum`, `const`, `default`, `examples`, descriptions, titles)
//! are tokenized like any text. An `enum` value the model picks is sent back as an argument, and
//! `tools/call` arguments are restored, so a tokenized enum value round-trips under the same
//! flow rules as any other token. Schema keywords (`type`, `format`) hold no PII.
//!
//! A tokenized resource URI or template, or a completion value, restores when the host sends it
//! back: `resources/read`, `resources/subscribe`/`unsubscribe`, `prompts/get` and
//! `completion/complete` params are all restored on the way out.
//!
//! A tool whose *name* is token-shaped becomes `[LITERAL_N]` in the list and cannot be called
//! (`tools/call` names are not restored): only a hostile server names a tool that way.
//!
//! # Origins
//!
//! Tokens minted on a surface record `server/<surface>` (`Surface::origin_name`):
//! `crm/tools/list`, `crm/resources/list`, `crm/progress`, … so flow rules can match them
//! (`from: crm/*` covers them all).
//!
//! # Cost
//!
//! None of this is on the `tools/call` path. Lists and `initialize` are scanned once per
//! request: one walk to pick identifiers and display names, then the engine's JSON scan.

use std::ops::Range;

pub use crate::config::surfaces::{SurfaceMode, SurfacesConfig};
use crate::detect::Kind;
use crate::engine::{Engine, EngineError};
use crate::token::{self, Token};
use crate::vault::{MintRequest, SessionId};
use crate::walk::json::{self, Position, Segment, StrLit};
use crate::walk::{FoundValues, WalkError};

/// One kind of server → host message the interceptor scans outside tool results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Surface {
    /// `initialize` (and `server/discover`) results: instructions, server info, capabilities.
    Initialize,
    /// `tools/list` results: descriptions, titles, annotations, schemas.
    ToolsList,
    /// `prompts/list` results: titles, descriptions, argument descriptions.
    PromptsList,
    /// `resources/list` results: URIs, names, titles, descriptions.
    ResourcesList,
    /// `resources/templates/list` results: URI templates, names, titles, descriptions.
    TemplatesList,
    /// `completion/complete` results: the values offered.
    Completion,
    /// `notifications/progress` params.
    Progress,
    /// `elicitation/create` params: the message and the requested form.
    Elicitation,
    /// Any other result, server request or notification: scanned whole.
    Other,
}

/// One step of an identifier's path, relative to the scanned member.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// This object key.
    Key(&'static str),
    /// Any array index.
    Any,
}

use Step::{Any, Key};

type Paths = &'static [&'static [Step]];

/// Icon sources: `data:` URIs are base64, and hosts fetch them rather than show them.
const TOOL_PATHS: Paths = &[
    &[Key("tools"), Any, Key("name")],
    &[Key("tools"), Any, Key("icons"), Any, Key("src")],
    &[Key("nextCursor")],
];
const PROMPT_PATHS: Paths = &[
    &[Key("prompts"), Any, Key("name")],
    &[Key("prompts"), Any, Key("arguments"), Any, Key("name")],
    &[Key("prompts"), Any, Key("icons"), Any, Key("src")],
    &[Key("nextCursor")],
];
const RESOURCE_PATHS: Paths = &[
    &[Key("resources"), Any, Key("icons"), Any, Key("src")],
    &[Key("nextCursor")],
];
const TEMPLATE_PATHS: Paths = &[
    &[Key("resourceTemplates"), Any, Key("icons"), Any, Key("src")],
    &[Key("nextCursor")],
];
const INITIALIZE_PATHS: Paths = &[
    &[Key("protocolVersion")],
    &[Key("supportedVersions"), Any],
    &[Key("serverInfo"), Key("version")],
    &[Key("serverInfo"), Key("icons"), Any, Key("src")],
];
const PROGRESS_PATHS: Paths = &[&[Key("progressToken")]];
const ELICITATION_PATHS: Paths = &[&[Key("elicitationId")], &[Key("mode")]];
/// Ids the host matches on, in results and notifications of any other method.
const OTHER_PATHS: Paths = &[
    &[Key("requestId")],
    &[Key("progressToken")],
    &[Key("elicitationId")],
    &[Key("taskId")],
    &[Key("task"), Key("taskId")],
    &[Key("tasks"), Any, Key("taskId")],
    &[Key("nextCursor")],
];

impl Surface {
    /// The surface of a host request's result, by the request's method.
    pub(crate) fn of_result(method: &str) -> Surface {
        match method {
            "initialize" | "server/discover" => Surface::Initialize,
            "tools/list" => Surface::ToolsList,
            "prompts/list" => Surface::PromptsList,
            "resources/list" => Surface::ResourcesList,
            "resources/templates/list" => Surface::TemplatesList,
            "completion/complete" => Surface::Completion,
            _ => Surface::Other,
        }
    }

    /// The surface of a server request's or notification's params, by its method.
    pub(crate) fn of_message(method: &str) -> Surface {
        match method {
            "notifications/progress" => Surface::Progress,
            "elicitation/create" => Surface::Elicitation,
            _ => Surface::Other,
        }
    }

    /// The name part of the origin of tokens minted here (`server/<this>`); for
    /// [`Surface::Other`] the message's method when it is one of the protocol's
    /// (`crm/notifications/resources/updated`), else `other`: a method name is the sender's
    /// text, and origins reach audit lines.
    pub(crate) fn origin_name(self, method: &str) -> &str {
        match self {
            Surface::Initialize => "initialize",
            Surface::ToolsList => "tools/list",
            Surface::PromptsList => "prompts/list",
            Surface::ResourcesList => "resources/list",
            Surface::TemplatesList => "resources/templates/list",
            Surface::Completion => "completion/complete",
            Surface::Progress => "progress",
            Surface::Elicitation => "elicitation",
            Surface::Other => protocol_method(method).unwrap_or("other"),
        }
    }

    /// How this surface is scanned under `config`.
    pub(crate) fn mode(self, config: &SurfacesConfig) -> SurfaceMode {
        match self {
            Surface::Progress => config.progress,
            Surface::Elicitation => config.elicitation,
            _ => SurfaceMode::Scan,
        }
    }

    fn paths(self) -> Paths {
        match self {
            Surface::Initialize => INITIALIZE_PATHS,
            Surface::ToolsList => TOOL_PATHS,
            Surface::PromptsList => PROMPT_PATHS,
            Surface::ResourcesList => RESOURCE_PATHS,
            Surface::TemplatesList => TEMPLATE_PATHS,
            Surface::Completion => &[],
            Surface::Progress => PROGRESS_PATHS,
            Surface::Elicitation => ELICITATION_PATHS,
            Surface::Other => OTHER_PATHS,
        }
    }
}

/// `method` when it is a method the protocol defines (besides the ones with a surface of their
/// own), to name it in origins and audit lines.
pub(crate) fn protocol_method(method: &str) -> Option<&'static str> {
    const METHODS: [&str; 19] = [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "roots/list",
        "tasks/get",
        "tasks/list",
        "tasks/cancel",
        "tasks/result",
        "tasks/update",
        "notifications/cancelled",
        "notifications/resources/updated",
        "notifications/resources/list_changed",
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/roots/list_changed",
        "notifications/tasks/status",
        "notifications/elicitation/complete",
        "notifications/message",
    ];
    METHODS.into_iter().find(|m| *m == method)
}

fn at(path: &[Step], pos: &Position<'_>) -> bool {
    let mut steps = path.iter();
    for segment in pos.segments() {
        let ok = match (steps.next(), segment) {
            (Some(Key(k)), Segment::Key(s)) => *k == s,
            (Some(Any), Segment::Index(_)) => true,
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    steps.next().is_none()
}

/// How one string value of a surface is scanned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Searched for PII with its JSON context, like a tool result (the default).
    Scan,
    /// An identifier: only token-shaped text is replaced (by `[LITERAL_N]`).
    Identifier,
    /// A display name under a `name` key (a resource's, a template's, the server's): searched
    /// as free text, because a `name` key would make the detector read any value as a
    /// person's name, and these are labels (`README.md`, `Example Resource`).
    Text,
}

impl Surface {
    /// How the string value at `pos` is scanned.
    pub(crate) fn class(self, pos: &Position<'_>) -> Class {
        if self.paths().iter().any(|path| at(path, pos)) {
            Class::Identifier
        } else if self.text_paths().iter().any(|path| at(path, pos)) {
            Class::Text
        } else {
            Class::Scan
        }
    }

    fn text_paths(self) -> Paths {
        match self {
            Surface::Initialize => &[&[Key("serverInfo"), Key("name")]],
            Surface::ResourcesList => &[&[Key("resources"), Any, Key("name")]],
            Surface::TemplatesList => &[&[Key("resourceTemplates"), Any, Key("name")]],
            _ => &[],
        }
    }
}

/// Picks string literals: `Some(class)` for those to rewrite before the JSON scan.
pub(crate) type Select<'s> = &'s (dyn Fn(&StrLit, &Position<'_>) -> Option<Class> + Sync);

/// One string literal picked from a member, decoded.
#[derive(Debug)]
pub(crate) struct Picked {
    /// The literal's range in the member, quotes included.
    range: Range<usize>,
    /// Its decoded text.
    pub(crate) text: String,
    /// How it is scanned.
    pub(crate) class: Class,
}

/// The string literals (values or keys) of `doc` that `select` picks, in order. An identifier
/// is picked only when it holds token-shaped text (there is nothing else to do with it).
pub(crate) fn pick(doc: &str, select: Select<'_>) -> Result<Vec<Picked>, WalkError> {
    let mut out = Vec::new();
    json::for_each_string(doc, |lit, pos| {
        let Some(class) = select(&lit, pos) else {
            return;
        };
        let raw = lit.raw(doc);
        if class == Class::Identifier
            && !lit.escaped
            && memchr::memchr(b'[', raw.as_bytes()).is_none()
        {
            return;
        }
        let text = if lit.escaped {
            json::decode(doc, lit)
        } else {
            raw.to_string()
        };
        if class == Class::Identifier && !token::contains_token(&text) {
            return;
        }
        out.push(Picked {
            range: lit.start..lit.end,
            text,
            class,
        });
    })?;
    Ok(out)
}

/// `doc` with each picked literal that has a replacement (`new`, parallel to `picked`)
/// rewritten; every other byte is kept.
pub(crate) fn rebuild(doc: &str, picked: &[Picked], new: &[Option<String>]) -> String {
    let mut out = String::with_capacity(doc.len() + 64);
    let mut copied = 0;
    for (p, new) in picked.iter().zip(new) {
        let Some(new) = new else { continue };
        out.push_str(&doc[copied..p.range.start]);
        out.push('"');
        json::encode_body_into(new, &mut out);
        out.push('"');
        copied = p.range.end;
    }
    out.push_str(&doc[copied..]);
    out
}

/// Token-shaped text in `texts` replaced by `[LITERAL_N]` tokens minted with `origin`.
#[derive(Debug, Default)]
pub(crate) struct Literalized {
    /// Each text rewritten (all of them held token-shaped text).
    pub(crate) texts: Vec<String>,
    /// Each token-shaped occurrence, as found.
    pub(crate) found: FoundValues,
    /// Its `LITERAL` token, parallel to `found`.
    pub(crate) tokens: Vec<Token>,
}

/// Replaces the token-shaped text in each of `texts` with `[LITERAL_N]` (one vault call).
pub(crate) async fn literalize(
    engine: &Engine,
    session: &SessionId,
    origin: &str,
    texts: &[&str],
) -> Result<Literalized, EngineError> {
    let spans: Vec<Vec<Range<usize>>> = texts
        .iter()
        .map(|t| token::find_tokens(t).map(|f| f.start..f.end).collect())
        .collect();
    let literal = Kind::Literal;
    let requests: Vec<MintRequest<'_>> = texts
        .iter()
        .zip(&spans)
        .flat_map(|(text, spans)| {
            spans.iter().map(|s| MintRequest {
                kind: &literal,
                value: &text[s.clone()],
                canonical: None,
            })
        })
        .collect();
    if requests.is_empty() {
        return Ok(Literalized {
            texts: texts.iter().map(|t| t.to_string()).collect(),
            ..Literalized::default()
        });
    }
    let tokens = engine.vault().mint(session, origin, &requests).await?;
    let mut found = FoundValues::new();
    for r in &requests {
        found.push(Kind::Literal, r.value, None);
    }
    drop(requests);
    let mut next = tokens.iter();
    let texts = texts
        .iter()
        .zip(&spans)
        .map(|(text, spans)| {
            let mut new = String::with_capacity(text.len());
            let mut from = 0;
            for span in spans {
                new.push_str(&text[from..span.start]);
                if let Some(t) = next.next() {
                    t.write_to(&mut new);
                }
                from = span.end;
            }
            new.push_str(&text[from..]);
            new
        })
        .collect();
    Ok(Literalized {
        texts,
        found,
        tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::detect::Detector;
    use crate::vault::MemoryVault;

    fn classes(surface: Surface, doc: &str, class: Class) -> Vec<String> {
        let mut out = Vec::new();
        json::for_each_string(doc, |lit, pos| {
            if !lit.is_key && surface.class(pos) == class {
                out.push(lit.raw(doc).to_string());
            }
        })
        .unwrap();
        out
    }

    #[test]
    fn identifiers_are_exactly_the_listed_paths() {
        let tools = r#"{"tools":[{"name":"get","description":"d","inputSchema":{"properties":{"name":{"type":"string"}}},
            "icons":[{"src":"data:image/png;base64,AAA"}]}],"nextCursor":"c"}"#;
        assert_eq!(
            classes(Surface::ToolsList, tools, Class::Identifier),
            ["get", "data:image/png;base64,AAA", "c"]
        );
        let prompts = r#"{"prompts":[{"name":"p","description":"d","arguments":[{"name":"a","description":"x"}]}]}"#;
        assert_eq!(
            classes(Surface::PromptsList, prompts, Class::Identifier),
            ["p", "a"]
        );
        let resources = r#"{"resources":[{"uri":"file:///a","name":"a","description":"d"}]}"#;
        assert!(classes(Surface::ResourcesList, resources, Class::Identifier).is_empty());
        assert_eq!(
            classes(Surface::ResourcesList, resources, Class::Text),
            ["a"]
        );
        let init = r#"{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1.0"},"instructions":"i"}"#;
        assert_eq!(
            classes(Surface::Initialize, init, Class::Identifier),
            ["2025-11-25", "1.0"]
        );
        assert_eq!(classes(Surface::Initialize, init, Class::Scan), ["i"]);
    }

    #[test]
    fn surfaces_by_method_and_their_settings() {
        assert_eq!(Surface::of_result("tools/list"), Surface::ToolsList);
        assert_eq!(Surface::of_result("x/y"), Surface::Other);
        assert_eq!(
            Surface::of_message("notifications/progress"),
            Surface::Progress
        );
        let pass = SurfacesConfig {
            elicitation: SurfaceMode::Pass,
            progress: SurfaceMode::Pass,
        };
        assert_eq!(Surface::Progress.mode(&pass), SurfaceMode::Pass);
        assert_eq!(Surface::ToolsList.mode(&pass), SurfaceMode::Scan);
        assert_eq!(
            Surface::Progress.mode(&SurfacesConfig::default()),
            SurfaceMode::Scan
        );
        assert_eq!(Surface::Other.origin_name("x/y"), "other");
        assert_eq!(
            Surface::Other.origin_name("notifications/resources/updated"),
            "notifications/resources/updated"
        );
    }

    #[test]
    fn picked_strings_are_literalized_and_rebuilt_in_place() {
        let engine = Engine::new(
            Arc::new(Detector::with_defaults()),
            Arc::new(MemoryVault::default()),
        );
        let session = SessionId::new("t");
        let doc = r#"{"a":"see [EMAIL_1] and [NAME_2]","b":"[EMAIL_1]","\u005bPHONE_3]":"k","c":"\"[IBAN_4]\"","d":"clean"}"#;
        let all: Select<'_> = &|_, _| Some(Class::Identifier);
        let picked = pick(doc, all).unwrap();
        assert_eq!(picked.len(), 4, "clean strings are not picked");
        let texts: Vec<&str> = picked.iter().map(|p| p.text.as_str()).collect();
        let out =
            futures::executor::block_on(literalize(&engine, &session, "s/x", &texts)).unwrap();
        assert_eq!(out.tokens.len(), 5);
        assert_eq!(*out.found.get(2).unwrap().value.expose(), "[EMAIL_1]");
        let new: Vec<Option<String>> = out.texts.into_iter().map(Some).collect();
        assert_eq!(
            rebuild(doc, &picked, &new),
            r#"{"a":"see [LITERAL_1] and [LITERAL_2]","b":"[LITERAL_1]","[LITERAL_3]":"k","c":"\"[LITERAL_4]\"","d":"clean"}"#
        );
        let values: Select<'_> = &|lit, _| (!lit.is_key).then_some(Class::Identifier);
        assert_eq!(pick(doc, values).unwrap().len(), 3);
        assert!(pick("{\"a\":[", all).is_err());
    }
}
