//! A seeded credentials corpus: every credential format the `SECRET` finder supports, planted in
//! the places tool results carry them (`.env` lines, YAML, JSON, logs, shell history, prose).
//!
//! The values are fake but well-formed: the right prefix, alphabet and length, a JWT whose
//! header decodes to JSON with `alg`, a PEM block with base64 lines. `examples/secrets_eval.rs`
//! prints the recall on it and the false credentials on clean text; `tests/detect_cases.rs`
//! holds the floor.

use base64::Engine;

use super::Rng;

/// One generated document and the byte ranges of the credentials planted in it.
#[derive(Clone, Debug)]
pub struct Planted {
    /// The format's name (`github-pat`, `jwt`, `env-password` ...).
    pub format: &'static str,
    /// The context it was planted in (`env`, `yaml`, `json`, `log`, `shell`, `prose`).
    pub context: &'static str,
    /// The document.
    pub text: String,
    /// The planted credential's byte range in `text`.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const B64STD: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX: &[u8] = b"0123456789abcdef";
const B32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DIGITS: &[u8] = b"0123456789";

fn run(rng: &mut Rng, alphabet: &[u8], n: usize) -> String {
    // Generated keys mix classes; start with one of each so short alphabets still do.
    (0..n).map(|_| char::from(*rng.pick(alphabet))).collect()
}

/// A mixed-class run (upper, lower and a digit guaranteed).
fn mixed(rng: &mut Rng, alphabet: &[u8], n: usize) -> String {
    let mut s = run(rng, alphabet, n.saturating_sub(3));
    s.insert(rng.below(s.len() + 1), 'Q');
    s.insert(rng.below(s.len() + 1), 'z');
    s.insert(rng.below(s.len() + 1), '7');
    s
}

/// Human-chosen passwords: a word, digits, maybe a symbol.
fn password(rng: &mut Rng) -> String {
    let words = [
        "hunter",
        "Summer",
        "dragon",
        "Tr0ub4dor",
        "monkey",
        "P@ssw0rd",
        "letmein",
        "Winter",
    ];
    let sym = ["", "!", "#", "_x", ".9", "*"];
    format!(
        "{}{}{}",
        rng.pick(&words),
        rng.below(10_000),
        rng.pick(&sym)
    )
}

fn jwt(rng: &mut Rng) -> String {
    let e = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let alg = rng.pick(&["HS256", "RS256", "ES256"]);
    let header = e.encode(format!(r#"{{"alg":"{alg}","typ":"JWT"}}"#));
    let payload = e.encode(format!(
        r#"{{"sub":"{}","iat":{}}}"#,
        rng.below(1_000_000),
        1_700_000_000 + rng.below(10_000_000)
    ));
    format!("{header}.{payload}.{}", run(rng, B64URL, 43))
}

fn pem(rng: &mut Rng) -> String {
    let label = rng.pick(&[
        "RSA PRIVATE KEY",
        "PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
    ]);
    let mut s = format!("-----BEGIN {label}-----\n");
    for _ in 0..(3 + rng.below(4)) {
        s.push_str(&run(rng, B64STD, 64));
        s.push('\n');
    }
    s.push_str(&format!("-----END {label}-----"));
    s
}

/// A credential of `format` and the env/config key it is usually found under.
fn value(rng: &mut Rng, format: &str) -> (String, &'static str) {
    match format {
        "aws-access-key-id" => (format!("AKIA{}", run(rng, B32, 16)), "AWS_ACCESS_KEY_ID"),
        "aws-secret-access-key" => (mixed(rng, B64STD, 40), "AWS_SECRET_ACCESS_KEY"),
        "github-pat" => (format!("ghp_{}", mixed(rng, ALNUM, 36)), "GITHUB_TOKEN"),
        "github-fine-grained" => (
            format!(
                "github_pat_{}_{}",
                mixed(rng, ALNUM, 22),
                mixed(rng, ALNUM, 59)
            ),
            "GH_TOKEN",
        ),
        "gitlab-pat" => (format!("glpat-{}", mixed(rng, B64URL, 20)), "GITLAB_TOKEN"),
        "slack-bot" => (
            format!(
                "xoxb-{}-{}-{}",
                run(rng, DIGITS, 11),
                run(rng, DIGITS, 13),
                mixed(rng, ALNUM, 24)
            ),
            "SLACK_BOT_TOKEN",
        ),
        "slack-webhook" => (
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                run(rng, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8),
                run(rng, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10),
                mixed(rng, ALNUM, 24)
            ),
            "SLACK_WEBHOOK_URL",
        ),
        "stripe-secret" => (
            format!("sk_live_{}", mixed(rng, ALNUM, 24)),
            "STRIPE_SECRET_KEY",
        ),
        "google-api-key" => (format!("AIza{}", mixed(rng, B64URL, 35)), "GOOGLE_API_KEY"),
        "openai-project" => (
            format!("sk-proj-{}", mixed(rng, B64URL, 64)),
            "OPENAI_API_KEY",
        ),
        "anthropic" => (
            format!("sk-ant-api03-{}AA", mixed(rng, B64URL, 93)),
            "ANTHROPIC_API_KEY",
        ),
        "npm" => (format!("npm_{}", mixed(rng, ALNUM, 36)), "NPM_TOKEN"),
        "sendgrid" => (
            format!("SG.{}.{}", mixed(rng, B64URL, 22), mixed(rng, B64URL, 43)),
            "SENDGRID_API_KEY",
        ),
        "twilio-api-key" => (format!("SK{}", run(rng, HEX, 32)), "TWILIO_API_KEY"),
        "azure-storage" => (format!("{}==", mixed(rng, B64STD, 86)), "AZURE_STORAGE_KEY"),
        "huggingface" => (format!("hf_{}", run(rng, LETTERS, 34)), "HF_TOKEN"),
        "pypi" => (
            format!("pypi-AgEIcHlwaS5vcmc{}", mixed(rng, B64URL, 70)),
            "PYPI_TOKEN",
        ),
        "digitalocean" => (
            format!("dop_v1_{}", run(rng, HEX, 64)),
            "DIGITALOCEAN_TOKEN",
        ),
        "shopify" => (
            format!("shpat_{}", run(rng, HEX, 32)),
            "SHOPIFY_ACCESS_TOKEN",
        ),
        "mailgun" => (format!("key-{}", run(rng, HEX, 32)), "MAILGUN_API_KEY"),
        "square" => (
            format!("sq0atp-{}", mixed(rng, B64URL, 22)),
            "SQUARE_ACCESS_TOKEN",
        ),
        "discord-webhook" => (
            format!(
                "https://discord.com/api/webhooks/{}/{}",
                run(rng, DIGITS, 18),
                mixed(rng, B64URL, 68)
            ),
            "DISCORD_WEBHOOK",
        ),
        "jwt" => (jwt(rng), "ID_TOKEN"),
        "pem" => (pem(rng), "PRIVATE_KEY"),
        // Percent-encoded, as a URL's user-info must be.
        "url-password" => (
            password(rng).replace('@', "%40").replace('#', "%23"),
            "DATABASE_URL",
        ),
        "password" => (password(rng), "DB_PASSWORD"),
        "generic-token" => (mixed(rng, ALNUM, 32), "API_TOKEN"),
        _ => unreachable!("unknown format"),
    }
}

/// Every format the corpus plants.
pub const FORMATS: &[&str] = &[
    "aws-access-key-id",
    "aws-secret-access-key",
    "github-pat",
    "github-fine-grained",
    "gitlab-pat",
    "slack-bot",
    "slack-webhook",
    "stripe-secret",
    "google-api-key",
    "openai-project",
    "anthropic",
    "npm",
    "sendgrid",
    "twilio-api-key",
    "azure-storage",
    "huggingface",
    "pypi",
    "digitalocean",
    "shopify",
    "mailgun",
    "square",
    "discord-webhook",
    "jwt",
    "pem",
    "url-password",
    "password",
    "generic-token",
];

/// Every context the corpus plants in.
pub const CONTEXTS: &[&str] = &["env", "yaml", "json", "log", "shell", "prose"];

/// Plants `value` (found under `key`) in `context`; returns the text and the value's offset.
fn plant(rng: &mut Rng, format: &str, context: &str, value: &str, key: &str) -> (String, usize) {
    let lower = key.to_ascii_lowercase();
    let pem = format == "pem";
    let at = |prefix: String, suffix: &str| {
        let start = prefix.len();
        (format!("{prefix}{value}{suffix}"), start)
    };
    if format == "url-password" {
        let scheme = rng.pick(&["postgres", "mysql", "mongodb+srv", "redis", "amqp"]);
        let user = rng.pick(&["app", "admin", "svc_api", ""]);
        let url_pre = format!("{scheme}://{user}:");
        let url_suf = "@db.internal.example.net:5432/prod";
        return match context {
            "env" => at(format!("DATABASE_URL={url_pre}"), url_suf),
            "yaml" => at(
                format!("database:\n  url: {url_pre}"),
                &format!("{url_suf}\n"),
            ),
            "json" => at(format!("{{\"dsn\": \"{url_pre}"), &format!("{url_suf}\"}}")),
            "log" => at(
                format!("2026-03-02T10:14:07Z ERROR pool: cannot connect to {url_pre}"),
                &format!("{url_suf} (timeout)"),
            ),
            "shell" => at(
                format!("$ psql \"{url_pre}"),
                &format!("{url_suf}\" -c 'select 1'"),
            ),
            _ => at(
                format!("You can reach the staging database at {url_pre}"),
                &format!("{url_suf} if the VPN is up."),
            ),
        };
    }
    match context {
        "env" if pem => at(format!("{key}=\""), "\"\n"),
        "env" => at(format!("# service config\n{key}="), "\nLOG_LEVEL=info\n"),
        "yaml" if pem => at(format!("{lower}: |\n"), "\n"),
        "yaml" => at(
            format!("service:\n  name: billing\n  {lower}: "),
            "\n  replicas: 3\n",
        ),
        "json" if pem => at(format!("{{\"{lower}\": \""), "\"}"),
        "json" => at(
            format!("{{\"name\": \"billing\", \"{lower}\": \""),
            "\", \"port\": 8080}",
        ),
        "log" if pem => at("2026-03-02T10:14:07Z DEBUG loaded key\n".to_string(), "\n"),
        "log" => at(
            format!("2026-03-02T10:14:07Z WARN config dump: {lower}="),
            " region=eu-west-1",
        ),
        "shell" if pem => at("$ cat ~/.ssh/id_rsa\n".to_string(), "\n$ ls\n"),
        "shell" => match rng.below(3) {
            0 => at(format!("$ export {key}=\""), "\"\n$ ./deploy.sh\n"),
            1 => at(
                "$ curl -H \"Authorization: Bearer ".to_string(),
                "\" https://api.example.net/v1/me\n",
            ),
            _ => at(
                format!("$ mycli login --{} ", lower.replace('_', "-")),
                " --verbose\n",
            ),
        },
        _ if pem => at(
            "Here is the deploy key, keep it safe:\n".to_string(),
            "\nThanks!",
        ),
        _ => match format {
            "password" => at(
                "The admin password: ".to_string(),
                ", please rotate it after the demo.",
            ),
            "aws-secret-access-key" | "generic-token" | "azure-storage" => {
                at(format!("Set {key}: "), " in the CI settings.")
            }
            _ => at(
                "Use the key ".to_string(),
                " for the staging deploy, it expires Friday.",
            ),
        },
    }
}

/// The corpus: every format in every context, `rounds` times with fresh values.
pub fn corpus(seed: u64, rounds: usize) -> Vec<Planted> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..rounds {
        for &format in FORMATS {
            for &context in CONTEXTS {
                let (mut value, key) = value(&mut rng, format);
                if context == "json" {
                    // A JSON string holds its newlines escaped.
                    value = value.replace('\n', "\\n");
                }
                let (text, start) = plant(&mut rng, format, context, &value, key);
                out.push(Planted {
                    format,
                    context,
                    end: start + value.len(),
                    start,
                    text,
                });
            }
        }
    }
    out
}
