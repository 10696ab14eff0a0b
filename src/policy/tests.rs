//! Precedence, every action, raw handling, tool policy, validation errors.

use std::path::Path;

use super::*;

fn policy(yaml: &str) -> Policy {
    let config = Config::parse(yaml, Path::new("t.yaml")).expect("valid yaml");
    Policy::from_config(&config).expect("valid rules")
}

fn errors(yaml: &str) -> Vec<Issue> {
    let config = Config::parse(yaml, Path::new("t.yaml")).expect("valid yaml");
    Policy::from_config(&config).unwrap_err().issues
}

const CRM: &str = r#"
flows:
  default: keep
  unknown_tokens: deny
  raw: allow
  rules:
    - name: crm-to-mail
      kinds: [EMAIL, NAME]
      from: crm/*
      to: mail/send_email
      args: [to, cc]
      action: allow
      raw: deny
    - name: nothing-to-search
      to: web/*
      action: deny
    - name: confirm-mail
      to: mail/*
      action: confirm
tools:
  - match: "web/images"
    action: allow
  - match: "web/*"
    action: deny
  - match: "shell/*"
    action: confirm
"#;

fn tok(kind: Kind, n: u32) -> Token {
    Token::new(kind, n)
}

#[test]
fn first_matching_rule_wins() {
    let p = policy(CRM);
    let d = p.decide_token(&Kind::Email, "crm/get_contact", "mail/send_email", "to");
    assert_eq!(d.action, Action::Restore);
    assert_eq!(d.rule.as_deref(), Some("crm-to-mail"));
    // Same destination, an argument crm-to-mail does not list: the next rule decides.
    let d = p.decide_token(&Kind::Email, "crm/get_contact", "mail/send_email", "body");
    assert_eq!(d.action, Action::Confirm);
    assert_eq!(d.rule.as_deref(), Some("confirm-mail"));
}

#[test]
fn every_condition_must_hold() {
    let p = policy(CRM);
    // Wrong kind.
    let d = p.decide_token(&Kind::Phone, "crm/get", "mail/send_email", "to");
    assert_eq!(d.rule.as_deref(), Some("confirm-mail"));
    // Wrong origin.
    let d = p.decide_token(&Kind::Email, "tickets/get", "mail/send_email", "to");
    assert_eq!(d.rule.as_deref(), Some("confirm-mail"));
    // Argument below a listed one matches.
    let d = p.decide_token(&Kind::Name, "crm/get", "mail/send_email", "cc.1");
    assert_eq!(d.rule.as_deref(), Some("crm-to-mail"));
    // Resource origins are covered by `crm/*`.
    let d = p.decide_token(
        &Kind::Email,
        "crm/crm://contacts/7",
        "mail/send_email",
        "to",
    );
    assert_eq!(d.rule.as_deref(), Some("crm-to-mail"));
}

#[test]
fn no_rule_falls_to_default() {
    let p = policy(CRM);
    let d = p.decide_token(&Kind::Email, "crm/get", "calendar/create", "attendees.0");
    assert_eq!(
        d,
        Decision {
            action: Action::Keep,
            rule: None
        }
    );
    let p = policy("flows:\n  default: deny\n");
    assert_eq!(
        p.decide_token(&Kind::Email, "a/b", "c/d", "x").action,
        Action::Deny
    );
    let p = policy("flows:\n  default: confirm\n");
    assert_eq!(
        p.decide_token(&Kind::Email, "a/b", "c/d", "x").action,
        Action::Confirm
    );
    // An empty configuration restores everything.
    let p = Policy::default();
    assert_eq!(
        p.decide_token(&Kind::Email, "a/b", "c/d", "x").action,
        Action::Restore
    );
}

#[test]
fn each_action_maps() {
    for (yaml, want) in [
        ("allow", Action::Restore),
        ("keep", Action::Keep),
        ("deny", Action::Deny),
        ("confirm", Action::Confirm),
    ] {
        let p = policy(&format!(
            "flows:\n  rules:\n    - name: r\n      to: s/t\n      action: {yaml}\n"
        ));
        let d = p.decide_token(&Kind::Email, "o/x", "s/t", "a");
        assert_eq!(d.action, want, "{yaml}");
        assert_eq!(d.rule.as_deref(), Some("r"));
    }
}

#[test]
fn literal_tokens_need_an_explicit_kind() {
    let p = policy(
        "flows:\n  default: deny\n  rules:\n    - name: all\n      to: '*'\n      action: keep\n",
    );
    // A rule without kinds does not cover LITERAL, and the default does not either.
    let d = p.decide_token(&Kind::Literal, "a/b", "c/d", "x");
    assert_eq!(d.action, Action::Restore);
    assert_eq!(d.rule, None);
    let p = policy(
        "flows:\n  rules:\n    - name: lit\n      kinds: [LITERAL]\n      to: '*'\n      action: deny\n",
    );
    let d = p.decide_token(&Kind::Literal, "a/b", "c/d", "x");
    assert_eq!(d.action, Action::Deny);
    assert_eq!(d.rule.as_deref(), Some("lit"));
}

#[test]
fn unknown_tokens() {
    let p = policy(CRM);
    assert_eq!(p.decide_unknown().action, Action::Deny);
    let p = policy("flows:\n  unknown_tokens: pass\n");
    assert_eq!(p.decide_unknown().action, Action::Keep);
}

#[test]
fn raw_values_use_rules_with_raw_only_and_ignore_from() {
    let p = policy(CRM);
    // crm-to-mail has `raw: deny` and matches kind, destination and argument; `from` is ignored.
    let d = p.decide_raw(&Kind::Email, "mail/send_email", "to");
    assert_eq!(d.action, RawAction::Deny);
    assert_eq!(d.rule.as_deref(), Some("crm-to-mail"));
    // Other argument: confirm-mail has no `raw:`, so flows.raw decides.
    let d = p.decide_raw(&Kind::Email, "mail/send_email", "body");
    assert_eq!(d.action, RawAction::Allow);
    assert_eq!(d.rule, None);
    // A deny rule for tokens says nothing about raw values.
    let d = p.decide_raw(&Kind::Email, "web/search", "q");
    assert_eq!(d.action, RawAction::Allow);
    let p = policy("flows:\n  raw: tokenize\n");
    assert_eq!(
        p.decide_raw(&Kind::Phone, "a/b", "x").action,
        RawAction::Tokenize
    );
    let p = policy(
        "flows:\n  raw: deny\n  rules:\n    - name: ok\n      kinds: [PHONE]\n      to: tel/*\n      action: allow\n      raw: allow\n",
    );
    assert_eq!(
        p.decide_raw(&Kind::Phone, "tel/dial", "n").action,
        RawAction::Allow
    );
    assert_eq!(
        p.decide_raw(&Kind::Email, "tel/dial", "n").action,
        RawAction::Deny
    );
}

#[test]
fn tool_policy_first_match_and_default_allow() {
    let p = policy(CRM);
    assert_eq!(p.tool_action("web", "images"), ToolAction::Allow);
    assert_eq!(p.tool_action("web", "search"), ToolAction::Deny);
    assert!(!p.tool_listed("web", "search"));
    assert_eq!(p.tool_action("shell", "run"), ToolAction::Confirm);
    assert!(p.tool_listed("shell", "run"));
    assert_eq!(p.tool_action("crm", "get"), ToolAction::Allow);
}

#[test]
fn call_with_any_deny_is_denied_naming_rule_and_tokens() {
    let p = policy(CRM);
    let mut c = p.check_call("mail", "send_email");
    assert_eq!(
        c.token(&tok(Kind::Email, 1), "crm/get", "to").action,
        Action::Restore
    );
    // Raw email typed into `to`: crm-to-mail says raw: deny.
    assert_eq!(c.raw(&Kind::Email, "cc.0").action, RawAction::Deny);
    assert_eq!(
        c.token(&tok(Kind::Name, 2), "crm/get", "body").action,
        Action::Confirm
    );
    let CallVerdict::Deny(d) = c.finish() else {
        panic!("expected a denial")
    };
    assert_eq!(d.rule(), Some("crm-to-mail"));
    assert_eq!(
        d.to_string(),
        "call to mail/send_email denied: raw EMAIL written by the model in argument `cc.0` (rule `crm-to-mail`)"
    );
    let mut c = p.check_call("web", "images");
    c.token(&tok(Kind::Email, 3), "crm/get", "q");
    c.unknown_token(&tok(Kind::Phone, 9), "q");
    let CallVerdict::Deny(d) = c.finish() else {
        panic!("expected a denial")
    };
    assert_eq!(d.rule(), Some("nothing-to-search"));
    assert_eq!(d.tokens(), [&tok(Kind::Email, 3), &tok(Kind::Phone, 9)]);
    assert_eq!(
        d.to_string(),
        "call to web/images denied: [EMAIL_3] (EMAIL) from crm/get in argument `q` (rule `nothing-to-search`); \
         [PHONE_9] is not a token of this session in argument `q` (flows.unknown_tokens)"
    );
}

#[test]
fn tool_policy_deny_denies_the_call_even_without_tokens() {
    let p = policy(CRM);
    let c = p.check_call("web", "search");
    let CallVerdict::Deny(d) = c.finish() else {
        panic!("expected a denial")
    };
    assert_eq!(
        d.to_string(),
        "call to web/search denied: tool policy `web/*` covers this tool"
    );
}

#[test]
fn confirmations_are_one_per_call() {
    let p = policy(CRM);
    let mut c = p.check_call("mail", "send_email");
    c.token(&tok(Kind::Email, 1), "crm/get", "body");
    c.token(&tok(Kind::Name, 1), "tickets/read", "body");
    c.token(&tok(Kind::Email, 1), "crm/get", "to");
    let CallVerdict::Confirm(q) = c.finish() else {
        panic!("expected a confirmation")
    };
    assert_eq!(q.kinds(), [&Kind::Email, &Kind::Name]);
    assert_eq!(q.origins(), ["crm/get", "tickets/read"]);
    assert_eq!(
        q.to_string(),
        "send EMAIL, NAME ([EMAIL_1], [NAME_1]) from crm/get, tickets/read to mail/send_email? required by rule `confirm-mail`"
    );
    // Tool-policy confirmation.
    let c = p.check_call("shell", "run");
    let CallVerdict::Confirm(q) = c.finish() else {
        panic!("expected a confirmation")
    };
    assert_eq!(
        q.to_string(),
        "call shell/run? required by tool policy `shell/*`"
    );
}

#[test]
fn deny_beats_confirm_and_clean_calls_proceed() {
    let p = policy(CRM);
    let mut c = p.check_call("shell", "run");
    c.unknown_token(&tok(Kind::Email, 5), "cmd");
    assert!(matches!(c.finish(), CallVerdict::Deny(_)));
    let mut c = p.check_call("crm", "update");
    assert_eq!(
        c.token(&tok(Kind::Email, 1), "crm/get", "x").action,
        Action::Keep
    );
    assert_eq!(c.finish(), CallVerdict::Proceed);
}

#[test]
fn check_call_agrees_with_decide_token() {
    let p = policy(CRM);
    for dest in [
        ("mail", "send_email"),
        ("web", "q"),
        ("crm", "x"),
        ("mail", "draft"),
    ] {
        for kind in [Kind::Email, Kind::Name, Kind::Phone, Kind::Literal] {
            for arg in ["to", "cc.0", "body"] {
                let joined = format!("{}/{}", dest.0, dest.1);
                let single = p.decide_token(&kind, "crm/get", &joined, arg);
                let mut c = p.check_call(dest.0, dest.1);
                let t = tok(kind.clone(), 1);
                assert_eq!(c.token(&t, "crm/get", arg), single, "{joined} {kind} {arg}");
                assert_eq!(
                    c.raw(&kind, arg),
                    p.decide_raw(&kind, &joined, arg),
                    "{joined} {kind} {arg}"
                );
            }
        }
    }
}

#[test]
fn hints_cannot_grant_the_api_has_no_input_for_them() {
    // The tool policy is a function of (server, tool) only: a denied tool stays denied whatever
    // the server says about it, and `tool_listed` agrees.
    let p = policy(CRM);
    assert_eq!(p.tool_action("web", "search"), ToolAction::Deny);
    assert!(!p.tool_listed("web", "search"));
}

#[test]
fn semantic_errors_have_locations() {
    let yaml = "flows:\n  rules:\n    - name: a\n      kinds: [EMAIL, EMIAL]\n      to: mail/**\n      action: allow\n    - name: a\n      to: x/y\n      args: ['a..b']\n      action: deny\ntools:\n  - match: '/x'\n    action: deny\n";
    let issues = errors(yaml);
    let shown: Vec<String> = issues
        .iter()
        .map(|i| format!("{}:{} {}", i.line, i.column, i.message))
        .collect();
    assert_eq!(issues.len(), 5, "{shown:#?}");
    assert_eq!((issues[0].line, issues[0].column), (4, 22), "{shown:#?}");
    assert!(
        issues[0].message.contains("unknown kind `EMIAL`"),
        "{shown:#?}"
    );
    assert_eq!(issues[1].line, 5);
    assert!(issues[1].message.contains("bad `to` glob"), "{shown:#?}");
    assert_eq!(issues[2].line, 7);
    assert!(issues[2].message.contains("duplicate rule name `a`"));
    assert_eq!(issues[3].line, 9);
    assert!(issues[3].message.contains("bad `args` path"));
    assert_eq!(issues[4].line, 12);
    assert!(issues[4].message.contains("bad `match` glob"));
}

#[test]
fn empty_lists_are_errors() {
    let issues = errors(
        "flows:\n  rules:\n    - name: r\n      kinds: []\n      to: a/b\n      args: []\n      action: deny\n",
    );
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(issues[0].message.contains("empty `kinds`"));
    assert!(issues[1].message.contains("empty `args`"));
}

#[test]
fn custom_kinds_are_valid_when_defined() {
    let yaml = "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{6}'\nflows:\n  rules:\n    - name: r\n      kinds: [EMPLOYEE_ID]\n      to: hr/*\n      action: deny\n";
    let p = policy(yaml);
    let d = p.decide_token(&Kind::from_name("EMPLOYEE_ID"), "a/b", "hr/x", "id");
    assert_eq!(d.action, Action::Deny);
    let issues = errors(
        "flows:\n  rules:\n    - name: r\n      kinds: [EMPLOYEE_ID]\n      to: hr/*\n      action: deny\n",
    );
    assert!(issues[0].message.contains("detect.custom"), "{issues:?}");
}

#[test]
fn unknown_keys_and_bad_enums_are_config_errors() {
    let err = check_text(
        "flows:\n  rules:\n    - name: r\n      to: a/b\n      action: allow\n      rwa: deny\n",
        Path::new("f.yaml"),
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("f.yaml:6:"), "{err}");
    assert!(err.to_string().contains("rwa"), "{err}");
    let err = check_text(
        "flows:\n  rules:\n    - name: r\n      to: a/b\n      action: maybe\n",
        Path::new("f.yaml"),
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("f.yaml:5:"), "{err}");
    let err = check_text("tools:\n  - match: a/b\n", Path::new("f.yaml")).unwrap_err();
    assert!(err.to_string().contains("action"), "{err}");
}

#[test]
fn describe_prints_normalised_rules() {
    let lines = policy(CRM).describe();
    assert_eq!(
        lines[0],
        "flows: default keep, unknown_tokens deny, raw allow"
    );
    assert_eq!(
        lines[1],
        "rule crm-to-mail: kinds [EMAIL, NAME], from crm/*, to mail/send_email, args [to, cc], action allow, raw deny"
    );
    assert_eq!(
        lines[2],
        "rule nothing-to-search: kinds all-but-LITERAL, from */*, to web/*, args all, action deny"
    );
    assert_eq!(lines[5], "tool web/*: action deny");
}
