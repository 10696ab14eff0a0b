//! Small hand-written word lists: titles, particles, context cues and well-known non-people.
//!
//! These are the words whose role the gazetteer cannot know: "Dr." announces a name, "van" joins
//! one, "Thanks," precedes one, "Street" ends a place, "Ford" is more often a company than a
//! person. Every list is matched on lower-cased ASCII (or exact Unicode for a few entries).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use super::gazetteer::FxHasher;

/// Words that announce a person's name when they stand right before it (compared lower-cased,
/// without a trailing `.`).
pub(crate) const TITLES: &[&str] = &[
    "mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lady", "lord",
    "madam", "madame", "mme", "mlle", "monsieur", "herr", "frau", "sr", "sra", "srta", "señor",
    "señora", "dona", "doña", "rev", "reverend", "fr", "father", "sister", "brother", "capt",
    "captain", "sgt", "sergeant", "lt", "lieutenant", "col", "colonel", "gen", "general", "cmdr",
    "officer", "detective", "det", "judge", "justice", "senator", "sen", "rep", "gov", "governor",
    "president", "pres", "mayor", "uncle", "aunt", "auntie", "grandma", "grandpa", "coach",
    "nurse", "dra", "ing", "mrs.", "hon", "rabbi", "imam", "pastor", "sheikh", "dott", "sig",
    "signor", "signora", "pan", "pani", "gospodin", "господин", "госпожа", "κ", "κύριος",
];

/// Lower-case words that join the parts of a name ("van der Berg", "del Carmen", "bin Zayed").
pub(crate) const PARTICLES: &[&str] = &[
    "van", "der", "den", "de", "del", "della", "la", "le", "da", "das", "do", "dos", "di", "du",
    "von", "zu", "ter", "ten", "bin", "bint", "ibn", "al", "el", "y", "af", "av", "st",
];

/// A word right before a name that makes a single word a person: greetings, sign-offs, address
/// lines.
pub(crate) const STRONG_BEFORE: &[&str] = &[
    "hi", "hello", "hey", "dear", "thanks", "thank", "thx", "ty", "cheers", "regards", "sincerely",
    "bye", "congrats", "congratulations", "welcome", "yo", "attn", "attention", "cc", "bcc",
    "signed", "love", "xoxo", "goodbye", "morning", "evening", "afternoon", "night",
];

/// A word right before a name that makes a known name word a person.
pub(crate) const WEAK_BEFORE: &[&str] = &[
    "by", "from", "with", "to", "contact", "ask", "asked", "call", "called", "tell", "told", "met",
    "meet", "meeting", "email", "emailed", "ping", "pinged", "per", "via", "assigned", "assignee",
    "owner", "reporter", "manager", "spoke", "loop", "dm", "name",
    "friend", "wife", "husband", "son", "daughter", "mom", "dad", "mother", "father", "boss",
    "colleague", "partner", "brother", "sister", "cousin", "patient", "customer", "client",
    "named", "nicknamed", "him", "her", "early", "late", "young", "old", "poor", "dear",
    "user", "employee", "author", "written", "signed", "approved", "reviewed", "for", "of",
    "starring", "says", "shouted", "featuring", "director", "directed", "produced", "sung",
    "about", "invite", "invited", "thank", "remind", "let", "ex", "like", "as", "said", "says",
    "pay", "paid", "ms", "mr", "feat", "ft", "vs",
];

/// A word right after a name that makes a single word a person ("Omar said").
pub(crate) const STRONG_AFTER: &[&str] = &[
    "said", "says", "wrote", "writes", "thinks", "thought", "noted", "notes", "confirmed",
    "asked", "asks", "replied", "replies", "told", "mentioned", "explained", "added", "agreed",
    "answered", "commented", "responded", "reported", "emailed", "called", "texted", "tweeted",
    "wants", "wanted", "needs", "needed", "believes", "feels", "knows", "likes", "loves", "hates",
    "was", "is", "has", "had", "will", "would", "can", "could", "should", "did", "does",
    "who", "himself", "herself", "jr", "sr", "shouted", "yelled", "smiled", "laughed", "cried",
    "whispered", "nodded", "sighed", "married", "joined", "left", "arrived", "signed",
];

/// Words after which a capitalised word is a place or organisation rather than a person, when
/// nothing else says it is a person.
pub(crate) const PLACE_BEFORE: &[&str] = &["in", "at", "near", "across", "into", "visit", "visited", "the"];

/// Street-type words: a capitalised run right after one is a street, not a person.
pub(crate) const STREET_BEFORE: &[&str] = &[
    "rue", "via", "rua", "calle", "avenida", "avda", "av", "ul", "ulica", "cours", "strasse",
    "straße", "camino", "estrada", "allee", "allée", "laan", "vej", "vei", "boulevard", "bd",
    "chemin", "route", "impasse", "quai", "piazza", "plaza", "praça", "largo", "viale", "corso",
    "carrer", "paseo", "port", "station", "mount", "fort", "lake", "cape", "saint", "st",
    "street", "road", "avenue", "lane", "drive", "ctra", "travessa", "estr", "r",
];

/// Words that end an organisation or place name: a run containing one is not a person.
pub(crate) const ORG_PLACE_WORDS: &[&str] = &[
    "street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "drive", "ln", "ct",
    "pl", "square", "bridge", "river", "lake", "mountain", "mt", "county", "city", "village",
    "island", "islands", "beach", "valley", "hills", "center", "centre", "school", "university", "college",
    "academy", "institute", "hospital", "clinic", "church", "cathedral", "bank", "inc", "llc",
    "ltd", "plc", "gmbh", "ag", "sa", "corp", "corporation", "co", "company", "group", "holdings",
    "foundation", "trust", "fund", "airport", "station", "hotel", "restaurant", "cafe", "bar",
    "press", "records", "studios", "studio", "airlines", "airways", "motors", "systems",
    "technologies", "technology", "labs", "partners", "associates", "industries", "international",
    "enterprises", "solutions", "services", "consulting", "media", "networks", "pharmaceuticals",
    "stadium", "arena", "museum", "library", "gallery", "theatre", "theater", "festival", "awards",
    "league", "club", "fc", "team", "series", "week",
    "state", "states", "republic", "kingdom", "province", "district", "region", "estate",
    "tower", "towers", "building", "plaza", "mall", "market", "street's", "family", "brothers",
    "sons", "llp", "pc",
];

/// Months, weekdays and holidays: never a person on their own.
pub(crate) const CALENDAR: &[&str] = &[
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
    "christmas", "easter", "halloween", "thanksgiving", "xmas", "today", "tomorrow", "tonight",
];

/// Places and organisations whose names are also common name words; alone (or as the whole
/// run) they are not people unless a title or greeting says so.
pub(crate) const NOT_PEOPLE: &[&str] = &[
    // countries, regions and cities that are also given names or surnames
    "jordan", "chad", "israel", "lebanon", "china", "france", "kenya",
    "chile", "cuba", "jamaica", "panama", "peru", "mali", "niger", "florence",
    "london", "houston", "dallas", "denver", "phoenix",
    "orlando", "raleigh", "washington",
    "vienna", "berlin", "milan", "lyon", "york", "boston", "camden",
    "trinidad", "tobago", "indiana", "nevada",
    "alabama", "arizona", "texas", "california", "kansas", "kentucky", "louisiana", "maryland",
    "america", "europe", "asia", "africa", "canada", "mexico", "brazil", "germany", "england",
    "ireland", "scotland", "wales", "britain", "spain", "italy", "russia", "japan", "korea",
    "australia", "zealand", "nigeria", "egypt", "iran", "iraq", "syria", "turkey", "greece",
    "poland", "sweden", "norway", "denmark", "finland", "holland", "belgium", "austria",
    "switzerland", "portugal", "argentina", "colombia", "venezuela", "pakistan", "bangladesh",
    "vietnam", "thailand", "indonesia", "philippines", "malaysia", "singapore", "dubai",
    "los", "angeles", "san", "francisco", "diego", "jose", "santa", "vegas", "miami", "atlanta",
    "seattle", "portland", "chicago", "detroit", "cleveland", "nashville", "memphis", "tampa",
    // companies and brands
    "ford", "disney", "dell", "tesla", "boeing", "chanel", "gucci", "prada", "dior", "adidas",
    "nike", "toyota", "honda", "nissan", "porsche", "ferrari", "lamborghini", "mercedes",
    "chevrolet", "chevy", "lexus", "mazda", "hyundai", "kia", "samsung", "sony", "nokia",
    "google", "amazon", "apple", "microsoft", "oracle", "intel", "cisco", "ibm", "netflix",
    "twitter", "facebook", "instagram", "youtube", "uber", "lyft", "walmart", "target", "costco",
    "kroger", "wendy", "wendy's", "mcdonald's", "hilton", "marriott", "hyatt", "siemens",
    "philips", "bosch", "nestle", "heinz", "kellogg", "hershey", "mattel", "hasbro", "lego",
    "barclays", "lloyds", "hsbc", "chase", "fargo", "schwab", "fidelity", "vanguard", "goldman",
    "sachs", "morgan", "stanley", "merrill", "lynch", "deloitte", "accenture", "gartner", "jeep",
    "dodge", "chrysler", "cadillac", "buick", "pontiac", "lincoln's", "harley", "davidson",
    "royce", "rolls", "bentley", "jaguar", "mercury", "saturn", "gillette", "colgate",
    "palmolive", "reebok", "puma", "levi", "levi's", "wrangler", "kohl's", "macy's", "dillard's",
    "nordstrom", "cartier", "hermes", "hermès", "versace", "armani", "fendi",
    "valentino", "givenchy", "lancome", "clinique", "estee", "lauder", "revlon", "maybelline",
    // cultural and religious figures' epithets, weekdays in other languages, misc
    "god", "jesus", "christ", "lord", "allah", "buddha", "santa's",
];

/// Companies written as two or more name words ("Wells Fargo", "Johnson & Johnson"), as
/// lower-case word sequences.
pub(crate) const ORG_PHRASES: &[&[&str]] = &[
    &["wells", "fargo"],
    &["johnson", "johnson"],
    &["morgan", "stanley"],
    &["goldman", "sachs"],
    &["procter", "gamble"],
    &["ernst", "young"],
    &["marks", "spencer"],
    &["dow", "jones"],
    &["charles", "schwab"],
    &["john", "deere"],
    &["harley", "davidson"],
    &["rolls", "royce"],
    &["tommy", "hilfiger"],
    &["calvin", "klein"],
    &["ralph", "lauren"],
    &["louis", "vuitton"],
    &["hewlett", "packard"],
    &["walt", "disney"],
    &["ben", "jerry's"],
    &["dolce", "gabbana"],
    &["abercrombie", "fitch"],
    &["barnes", "noble"],
    &["smith", "wesson"],
    &["lockheed", "martin"],
    &["estee", "lauder"],
    &["kelly", "services"],
    &["jack", "daniels"],
    &["jack", "daniel's"],
    &["johnnie", "walker"],
    &["martha", "stewart"],
    &["paul", "mitchell"],
    &["bank", "america"],
    &["santa", "claus"],
    &["st", "louis"],
    &["san", "jose"],
    &["new", "york"],
    &["los", "angeles"],
    &["costa", "rica"],
    &["sri", "lanka"],
    &["el", "salvador"],
    &["puerto", "rico"],
    &["saint", "lucia"],
    &["santa", "barbara"],
    &["santa", "clara"],
    &["santa", "monica"],
];

/// Bit flags: which lists a word is on.
pub(crate) const TITLE: u16 = 1;
pub(crate) const PARTICLE: u16 = 1 << 1;
pub(crate) const STRONG_BEFORE_F: u16 = 1 << 2;
pub(crate) const WEAK_BEFORE_F: u16 = 1 << 3;
pub(crate) const STRONG_AFTER_F: u16 = 1 << 4;
pub(crate) const PLACE_BEFORE_F: u16 = 1 << 5;
pub(crate) const STREET_BEFORE_F: u16 = 1 << 6;
pub(crate) const ORG_PLACE: u16 = 1 << 7;
pub(crate) const CALENDAR_F: u16 = 1 << 8;
pub(crate) const NOT_PEOPLE_F: u16 = 1 << 9;

/// Every list in one table (word → flags), built once per process, so one lookup tells every
/// role of a word.
#[derive(Debug)]
pub(crate) struct Lexicon(HashMap<&'static str, u16, BuildHasherDefault<FxHasher>>);

static SHARED: OnceLock<Lexicon> = OnceLock::new();

impl Lexicon {
    /// The process-wide lexicon.
    pub(crate) fn get() -> &'static Lexicon {
        SHARED.get_or_init(|| {
            let mut map: HashMap<&'static str, u16, BuildHasherDefault<FxHasher>> =
                HashMap::default();
            for (list, flag) in [
                (TITLES, TITLE),
                (PARTICLES, PARTICLE),
                (STRONG_BEFORE, STRONG_BEFORE_F),
                (WEAK_BEFORE, WEAK_BEFORE_F),
                (STRONG_AFTER, STRONG_AFTER_F),
                (PLACE_BEFORE, PLACE_BEFORE_F),
                (STREET_BEFORE, STREET_BEFORE_F),
                (ORG_PLACE_WORDS, ORG_PLACE),
                (CALENDAR, CALENDAR_F),
                (NOT_PEOPLE, NOT_PEOPLE_F),
            ] {
                for w in list {
                    *map.entry(w).or_default() |= flag;
                }
            }
            Lexicon(map)
        })
    }

    /// The flags of `word` (any case; a trailing `.` ignored); 0 for words on no list.
    pub(crate) fn flags(&self, word: &str) -> u16 {
        let word = word.strip_suffix('.').unwrap_or(word);
        let b = word.as_bytes();
        if b.len() > 24 || b.is_empty() {
            return 0;
        }
        if !b.is_ascii() {
            return self.0.get(word.to_lowercase().as_str()).copied().unwrap_or(0);
        }
        let mut buf = [0u8; 24];
        for (d, s) in buf.iter_mut().zip(b) {
            *d = s.to_ascii_lowercase();
        }
        std::str::from_utf8(&buf[..b.len()])
            .ok()
            .and_then(|w| self.0.get(w).copied())
            .unwrap_or(0)
    }

    /// Whether `word` is on the list `flag`.
    pub(crate) fn is(&self, word: &str, flag: u16) -> bool {
        self.flags(word) & flag != 0
    }
}
