//! The provider-prefixed credential formats: a fixed prefix, then a tail of a known alphabet and
//! length.
//!
//! Provenance: the formats are those of the public gitleaks rule set
//! (`config/gitleaks.toml`, MIT licence, github.com/gitleaks/gitleaks) and the providers' own
//! documentation of their token formats (GitHub's "behind GitHub's new authentication token
//! formats", GitLab's token prefixes, Slack's token types, Stripe's API keys page). The rules are
//! restated here as data, not copied regexes: each is a literal prefix found by one Aho-Corasick
//! pass and a tail checked byte by byte, so no regex runs on the hot path. No crate ships a
//! maintained rule set usable from Rust (checked December 2026).

/// The alphabet of a rule's tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Alphabet {
    /// `[A-Za-z0-9]`.
    Alnum,
    /// `[A-Za-z0-9_]`.
    AlnumUnder,
    /// `[A-Za-z0-9_-]` (base64url).
    B64Url,
    /// `[A-Za-z0-9_=-]` (base64url with padding).
    B64UrlPad,
    /// `[A-Za-z0-9+/=]` (standard base64).
    B64Std,
    /// `[0-9a-f]`.
    HexLower,
    /// `[0-9a-fA-F]`.
    Hex,
    /// `[0-9a-f-]`.
    HexDash,
    /// `[A-Z2-7]` (RFC 4648 base32, AWS key ids).
    Base32Upper,
    /// `[A-Z0-9]`.
    UpperAlnum,
    /// `[A-Za-z0-9-]` (Slack tokens).
    AlnumDash,
    /// `[A-Za-z0-9/]` (webhook paths).
    Path,
    /// `[A-Za-z0-9/_-]` (webhook paths with base64url parts).
    PathB64,
    /// `[A-Za-z0-9_.-]` (tokens made of dotted base64url parts).
    Dotted,
}

impl Alphabet {
    pub(super) fn has(self, b: u8) -> bool {
        match self {
            Alphabet::Alnum => b.is_ascii_alphanumeric(),
            Alphabet::AlnumUnder => b.is_ascii_alphanumeric() || b == b'_',
            Alphabet::B64Url => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Alphabet::B64UrlPad => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'='),
            Alphabet::B64Std => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='),
            Alphabet::HexLower => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Alphabet::Hex => b.is_ascii_hexdigit(),
            Alphabet::HexDash => b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-',
            Alphabet::Base32Upper => b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b),
            Alphabet::UpperAlnum => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Alphabet::AlnumDash => b.is_ascii_alphanumeric() || b == b'-',
            Alphabet::Path => b.is_ascii_alphanumeric() || b == b'/',
            Alphabet::PathB64 => b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'-'),
            Alphabet::Dotted => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'),
        }
    }
}

/// What else a rule's match must satisfy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Check {
    /// Nothing more.
    None,
    /// The tail mixes upper case, lower case and digits (generated keys do; words don't).
    Mixed,
    /// A context word (`twilio`, `sid`) in the 64 bytes before the prefix.
    TwilioContext,
    /// SendGrid: `SG.` + 22 base64url + `.` + 43 base64url.
    SendGrid,
    /// The span is the tail only (the prefix is a label such as `AccountKey=`).
    TailOnly,
    /// The span starts at the URL's `https://` (webhook URLs).
    Url,
}

/// One format: `prefix`, then `min..=max` bytes of `alphabet`.
#[derive(Debug)]
pub(super) struct Rule {
    pub(super) prefix: &'static str,
    pub(super) alphabet: Alphabet,
    pub(super) min: usize,
    pub(super) max: usize,
    pub(super) check: Check,
}

const fn r(prefix: &'static str, alphabet: Alphabet, min: usize, max: usize, check: Check) -> Rule {
    Rule {
        prefix,
        alphabet,
        min,
        max,
        check,
    }
}

use Alphabet::*;

/// Every prefix rule. A prefix may appear once: the automaton reports the longest prefix at a
/// position, so `sk-ant-` keys are read by the `sk-` rule (its alphabet includes `-`).
pub(super) const RULES: &[Rule] = &[
    // AWS access key ids (gitleaks aws-access-token).
    r("AKIA", Base32Upper, 16, 16, Check::None),
    r("ASIA", Base32Upper, 16, 16, Check::None),
    r("ABIA", Base32Upper, 16, 16, Check::None),
    r("ACCA", Base32Upper, 16, 16, Check::None),
    // GitHub (github-pat, github-oauth, github-app-token, github-refresh-token,
    // github-fine-grained-pat).
    r("ghp_", Alnum, 36, 36, Check::None),
    r("gho_", Alnum, 36, 36, Check::None),
    r("ghu_", Alnum, 36, 36, Check::None),
    r("ghs_", Alnum, 36, 36, Check::None),
    r("ghr_", Alnum, 36, 36, Check::None),
    r("github_pat_", AlnumUnder, 70, 90, Check::None),
    // GitLab (gitlab-pat, gitlab-ptt, gitlab-rrt, gitlab-deploy-token).
    r("glpat-", Dotted, 20, 80, Check::None),
    r("glptt-", Hex, 40, 40, Check::None),
    r("glrt-", B64Url, 20, 40, Check::None),
    r("gldt-", B64Url, 20, 40, Check::None),
    // Slack (slack-bot-token, slack-user-token, slack-app-token, slack-webhook-url).
    r("xoxb-", AlnumDash, 10, 250, Check::None),
    r("xoxa-", AlnumDash, 10, 250, Check::None),
    r("xoxp-", AlnumDash, 10, 250, Check::None),
    r("xoxr-", AlnumDash, 10, 250, Check::None),
    r("xoxs-", AlnumDash, 10, 250, Check::None),
    r("xoxe-", AlnumDash, 10, 250, Check::None),
    r("xapp-", AlnumDash, 10, 250, Check::None),
    r("hooks.slack.com/services/", Path, 20, 120, Check::Url),
    // Discord webhooks (discord-webhook).
    r("discord.com/api/webhooks/", PathB64, 60, 140, Check::Url),
    r("discordapp.com/api/webhooks/", PathB64, 60, 140, Check::Url),
    // Stripe (stripe-access-token) and its webhook signing secrets.
    r("sk_live_", Alnum, 10, 99, Check::None),
    r("sk_test_", Alnum, 10, 99, Check::None),
    r("rk_live_", Alnum, 10, 99, Check::None),
    r("rk_test_", Alnum, 10, 99, Check::None),
    r("whsec_", Alnum, 32, 64, Check::None),
    // Google API keys (gcp-api-key).
    r("AIza", B64Url, 35, 35, Check::None),
    // OpenAI (openai-api-key: legacy `sk-` + 48, `sk-proj-`, `sk-svcacct-`, `sk-admin-`) and
    // Anthropic (anthropic-api-key: `sk-ant-api03-`, `sk-ant-admin01-`): one rule.
    r("sk-", B64Url, 20, 220, Check::Mixed),
    // npm (npm-access-token).
    r("npm_", Alnum, 36, 36, Check::None),
    // SendGrid (sendgrid-api-token).
    r("SG.", Dotted, 66, 66, Check::SendGrid),
    // Twilio API key SIDs and account SIDs (twilio-api-key).
    r("SK", HexLower, 32, 32, Check::None),
    r("AC", HexLower, 32, 32, Check::TwilioContext),
    // Azure storage and Service Bus connection strings: the value after the label.
    r("AccountKey=", B64Std, 40, 100, Check::TailOnly),
    r("SharedAccessKey=", B64Std, 40, 100, Check::TailOnly),
    // Hugging Face (huggingface-access-token).
    r("hf_", Alnum, 30, 40, Check::None),
    // PyPI upload tokens (pypi-upload-token): `pypi-` + the base64 of a macaroon for pypi.org.
    r("pypi-AgEIcHlwaS5vcmc", B64Url, 50, 300, Check::None),
    // DigitalOcean (digitalocean-pat, -access-token, -refresh-token).
    r("dop_v1_", HexLower, 64, 64, Check::None),
    r("doo_v1_", HexLower, 64, 64, Check::None),
    r("dor_v1_", HexLower, 64, 64, Check::None),
    // Shopify (shopify-access-token, -custom-access-token, -private-app-access-token,
    // -shared-secret).
    r("shpat_", Hex, 32, 32, Check::None),
    r("shpca_", Hex, 32, 32, Check::None),
    r("shppa_", Hex, 32, 32, Check::None),
    r("shpss_", Hex, 32, 32, Check::None),
    // Mailgun private API keys (mailgun-private-api-token).
    r("key-", HexLower, 32, 32, Check::None),
    // Square (square-access-token, square-secret).
    r("sq0atp-", B64Url, 22, 22, Check::None),
    r("sq0csp-", B64Url, 43, 43, Check::None),
    r("EAAA", B64Url, 60, 60, Check::None),
    // Atlassian API tokens (atlassian-api-token).
    r("ATATT3", B64UrlPad, 150, 250, Check::None),
    // Linear, Postman, Databricks, Grafana, age, Pulumi, Notion, Sentry, Vault, Doppler,
    // Supabase (their gitleaks rules of the same names).
    r("lin_api_", Alnum, 40, 40, Check::None),
    r("PMAK-", HexDash, 59, 59, Check::None),
    r("dapi", HexLower, 32, 32, Check::None),
    r("glc_", B64UrlPad, 32, 400, Check::None),
    r("glsa_", AlnumUnder, 41, 41, Check::None),
    r("AGE-SECRET-KEY-1", UpperAlnum, 58, 58, Check::None),
    r("pul-", HexLower, 40, 40, Check::None),
    r("ntn_", Alnum, 40, 50, Check::None),
    r("sntrys_", B64UrlPad, 50, 300, Check::None),
    r("hvs.", B64Url, 90, 120, Check::None),
    r("hvb.", B64Url, 90, 200, Check::None),
    r("dp.pt.", Alnum, 43, 43, Check::None),
    r("sbp_", HexLower, 40, 40, Check::None),
    // AI providers: Groq, Replicate, xAI, Perplexity.
    r("gsk_", Alnum, 52, 52, Check::None),
    r("r8_", Alnum, 37, 37, Check::None),
    r("xai-", Alnum, 80, 80, Check::None),
    r("pplx-", Alnum, 48, 48, Check::None),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for rule in RULES {
            assert!(seen.insert(rule.prefix), "{}", rule.prefix);
            assert!(rule.min <= rule.max && rule.min > 0, "{}", rule.prefix);
        }
    }
}
