//! Shows, for each line of text, what the name finder decides and why: the NAME spans with the
//! rules alone and with the learned judge, and every candidate the judge saw, with the rules'
//! decision and the judge's score. For error analysis of single cases.
//!
//! ```text
//! echo 'I saw Mary Ann Smith yesterday.' | cargo run --release --example names_probe
//! ```

// The report is this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

use std::io::BufRead;

use mcp_veil::detect::FindContext;
use mcp_veil::detect::names::NameFinder;
use mcp_veil::detect::names::model::{Judge, RESCUE};

fn main() -> anyhow::Result<()> {
    let judge = Judge::from_bytes(include_bytes!("../data/names/judge.weights"))?
        .with_rescue(RESCUE[0], RESCUE[1]);
    let rules = NameFinder::new(&[], &[]).with_judge(None);
    let model = NameFinder::new(&[], &[]).with_judge(Some(judge.clone()));
    let cx = FindContext::default();
    for line in std::io::stdin().lock().lines() {
        let text = line?.replace("\\n", "\n");
        let show = |finder: &NameFinder| {
            let mut out = Vec::new();
            finder.find(&text, &cx, &mut out);
            out.iter()
                .map(|s| text[s.start..s.end].to_string())
                .collect::<Vec<_>>()
        };
        println!("{text:?}");
        println!("  rules: {:?}", show(&rules));
        println!("  judge: {:?}", show(&model));
        let (mut out, mut seen) = (Vec::new(), Vec::new());
        rules.trace(&text, &mut out, &mut seen);
        for c in &seen {
            println!(
                "    candidate {:?}: rule {} score {:.2}",
                &text[c.start..c.end],
                c.rule,
                judge.score(&c.features)
            );
        }
    }
    Ok(())
}
