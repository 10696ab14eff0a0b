//! Runs the default detector once over the `throughput` example's generated prose or
//! code/log text, for counting instructions with callgrind (the machine is shared, so
//! instruction counts are steadier than clocks).
//!
//! ```text
//! cargo build --release --example names_cost
//! valgrind --tool=callgrind --toggle-collect='mcp_veil::detect::names::NameFinder::find*' \
//!     target/release/examples/names_cost prose        # or: clean
//! ```
//!
//! The texts are the ones `throughput` measures: `testdata::prose(1, 1 MiB)` and
//! `testdata::clean_text(3, 1 MiB)`, each detected as one text; `lines` detects the same prose
//! line by line (about 2,000 lines of 520 bytes), as the short strings of tool results are,
//! which shows what each call costs besides its bytes; `bench` detects the criterion bench's
//! name-dense lines (`testdata::name_dense_lines`, 3,190 lines of about 330 bytes) the same
//! way; a file name instead (the reference corpus's `prose.txt`) is detected line by line too,
//! or as one text with `--whole`. Without `--toggle-collect`
//! callgrind counts the whole detector (and the generation, which `--toggle-collect=
//! 'mcp_veil::detect::Detector::detect'` leaves out). For whole-detector counts pass `--warm`
//! after the text name (`names_cost prose --warm`): a first pass, not counted, compiles the
//! phone patterns the text's numbers need, as a long-running process has long done. With
//! `--digest` it also prints a hash of every span found, to compare two builds' outputs.

// The byte count is this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

use std::hint::black_box;

use mcp_veil::detect::{Detector, FindContext};
use mcp_veil::testdata;

fn main() -> anyhow::Result<()> {
    const MB: usize = 1 << 20;
    let which = std::env::args().nth(1).unwrap_or_else(|| "prose".into());
    let text = match which.as_str() {
        "prose" | "lines" => testdata::prose(1, MB).text,
        // The criterion bench's `detect/prose_names` text, detected line by line like `lines`.
        "bench" => testdata::name_dense_lines(MB).concat(),
        "clean" => testdata::clean_text(3, MB).text,
        "json" => testdata::crm_json(2, MB).text,
        // A file (the reference corpus's `prose.txt`, say): detected line by line, like `lines`.
        path if std::path::Path::new(path).is_file() => std::fs::read_to_string(path)?,
        other => {
            anyhow::bail!("unknown text {other:?}: prose, lines, bench, clean, json or a file")
        }
    };
    let detector = Detector::with_defaults();
    // `--warm`: one pass first, through `detect_into`, which the callgrind toggles below leave
    // out. The phone recognizer compiles a calling code's patterns (and a format's regexes) the
    // first time a number needs them, once per process; a one-shot count would include that.
    if std::env::args().any(|a| a == "--warm") {
        let mut warm = Vec::new();
        detector.detect_into(&text, &FindContext::default(), &mut warm);
    }
    if which == "json" {
        let findings = mcp_veil::walk::scan_json(&detector, &text)?;
        println!(
            "{} bytes, empty: {}",
            text.len(),
            black_box(findings).is_empty()
        );
        return Ok(());
    }
    let whole = std::env::args().any(|a| a == "--whole");
    // `--digest`: also print a hash of every span (offsets, kind, canonical form), so that a
    // speed change can be checked output-identical on the same text with the old and new binary.
    let digest = std::env::args().any(|a| a == "--digest");
    let mut hasher = std::hash::DefaultHasher::new();
    let mut hash_spans = |spans: &[mcp_veil::detect::Span]| {
        use std::hash::Hash;
        for s in spans {
            (s.start, s.end, s.kind.as_str(), s.canonical.as_deref()).hash(&mut hasher);
        }
        0usize.hash(&mut hasher);
    };
    if which == "lines" || which == "bench" || (std::path::Path::new(&which).is_file() && !whole) {
        let mut found = 0;
        for line in text.split_inclusive('\n') {
            let spans = detector.detect(line, &FindContext::default());
            found += spans.len();
            if digest {
                hash_spans(&spans);
            }
        }
        println!("{} bytes, {found} spans", text.len());
        if digest {
            println!("digest {:016x}", std::hash::Hasher::finish(&hasher));
        }
        return Ok(());
    }
    let spans = detector.detect(&text, &FindContext::default());
    println!("{} bytes, {} spans", text.len(), black_box(&spans).len());
    if digest {
        hash_spans(&spans);
        println!("digest {:016x}", std::hash::Hasher::finish(&hasher));
    }
    Ok(())
}
