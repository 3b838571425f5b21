//! What klens reads of a processor's statement before Flink sees it: the topic it writes (the
//! `INSERT INTO` target), the query after it, and the names it may read (after `FROM` and
//! `JOIN`). klens declares as tables only those of them the caller may use; Flink's planner is
//! the judge of what the statement really reads and writes (see [`plan_tables`]), so this scan
//! only has to find every name a statement could mean, never to understand the query.

/// The parts of `INSERT INTO <topic> <query>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The topic written.
    pub output: String,
    /// The query whose rows are written, as typed (without a trailing `;`).
    pub query: String,
    /// Every name the query may read a table by, each once, in order of appearance; names it
    /// defines itself (`WITH x AS (...)`) left out.
    pub inputs: Vec<String>,
    /// Where the query starts in the statement: its line and column, from 1.
    pub query_at: (usize, usize),
}

/// The longest statement klens takes.
pub const MAX_STATEMENT: usize = 64 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// A bare word, as typed.
    Word(String),
    /// A name in backticks, unquoted.
    Quoted(String),
    /// A string literal or anything else that is not a name.
    Other(char),
}

/// The tokens of `sql` with their byte offsets; comments and string literals passed over.
fn tokens(sql: &str) -> Result<Vec<(usize, Token)>, String> {
    let bytes = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'-' && bytes.get(i + 1) == Some(&b'-') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            // A hint (`/*+ OPTIONS('topic' = ...) */`) would change a declared table's options,
            // the topic it reads among them.
            if bytes.get(i + 2) == Some(&b'+') {
                return Err(HINTS.to_string());
            }
            let end = sql[i + 2..].find("*/").ok_or("a comment opened with /* is not closed")?;
            i += 2 + end + 2;
        } else if c == b'\'' || c == b'"' {
            // A string ('it''s') or a double-quoted literal: skipped whole.
            let start = i;
            i += 1;
            loop {
                match bytes.get(i) {
                    None => {
                        return Err(format!("a string opened at character {start} is not closed"))
                    }
                    Some(&q) if q == c && bytes.get(i + 1) == Some(&c) => i += 2,
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            out.push((start, Token::Other('\'')));
        } else if c == b'`' {
            let start = i;
            let mut name = String::new();
            i += 1;
            loop {
                match bytes.get(i) {
                    None => {
                        return Err(format!(
                            "a name opened with ` at character {start} is not closed"
                        ))
                    }
                    Some(b'`') if bytes.get(i + 1) == Some(&b'`') => {
                        name.push('`');
                        i += 2;
                    }
                    Some(b'`') => {
                        i += 1;
                        break;
                    }
                    Some(_) => {
                        let ch = sql[i..].chars().next().unwrap_or_default();
                        name.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            out.push((start, Token::Quoted(name)));
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
            {
                i += 1;
            }
            out.push((start, Token::Word(sql[start..i].to_string())));
        } else {
            out.push((i, Token::Other(c as char)));
            i += 1;
        }
    }
    Ok(out)
}

fn is_keyword(token: &Token, word: &str) -> bool {
    matches!(token, Token::Word(w) if w.eq_ignore_ascii_case(word))
}

/// A table name at `at`: one name, bare or in backticks. A dotted path (a catalog's table) is
/// refused: a processor reads and writes the cluster's topics only.
fn table_at(tokens: &[(usize, Token)], at: usize) -> Result<Option<(String, usize)>, String> {
    let name = match tokens.get(at).map(|t| &t.1) {
        Some(Token::Quoted(n)) => n.clone(),
        Some(Token::Word(w)) if !RESERVED.iter().any(|r| w.eq_ignore_ascii_case(r)) => w.clone(),
        _ => return Ok(None),
    };
    if matches!(tokens.get(at + 1).map(|t| &t.1), Some(Token::Other('.'))) {
        return Err(format!(
            "{name}.… names a table of a catalog; a processor reads and writes topics of its own \
             cluster, named alone (in backticks when the name has - or .)"
        ));
    }
    Ok(Some((name, at + 1)))
}

const HINTS: &str =
    "SQL hints (/*+ ... */) are not taken in a processor: they could change what a table reads \
     or writes";

/// Words after FROM or JOIN that do not start a table name.
const RESERVED: &[&str] = &["LATERAL", "TABLE", "UNNEST", "SELECT", "VALUES"];

/// Reads `INSERT INTO <topic> [(<columns>)] <query>`.
pub fn parse(sql: &str) -> Result<Statement, String> {
    if sql.len() > MAX_STATEMENT {
        return Err(format!("the statement is over {} KiB", MAX_STATEMENT / 1024));
    }
    // Anywhere, whatever this scanner takes it for: Flink's parser reads comments and strings
    // in ways of its own (`//` comments, `\r` line ends, escaped quotes), and a hint there
    // would change what a table reads or writes.
    if sql.contains("/*+") {
        return Err(HINTS.to_string());
    }
    let tokens = tokens(sql)?;
    let starts =
        tokens.len() >= 2 && is_keyword(&tokens[0].1, "INSERT") && is_keyword(&tokens[1].1, "INTO");
    if !starts {
        return Err("a processor is one INSERT INTO <topic> SELECT … statement".to_string());
    }
    let Some((output, mut at)) = table_at(&tokens, 2)? else {
        return Err("INSERT INTO needs the topic to write, such as INSERT INTO `big-orders`".into());
    };
    // A column list after the topic.
    if matches!(tokens.get(at).map(|t| &t.1), Some(Token::Other('('))) {
        let mut depth = 0usize;
        while let Some((_, t)) = tokens.get(at) {
            at += 1;
            match t {
                Token::Other('(') => depth += 1,
                Token::Other(')') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let Some(&(query_start, _)) = tokens.get(at) else {
        return Err(format!("INSERT INTO {output} needs a query after it (SELECT … FROM …)"));
    };
    // One statement: a `;` may only end it.
    let mut end = sql.len();
    if let Some(semi) = tokens[at..].iter().position(|t| t.1 == Token::Other(';')) {
        if at + semi + 1 < tokens.len() {
            return Err("a processor is one statement; remove what follows the ;".to_string());
        }
        end = tokens[at + semi].0;
    }
    let query = sql[query_start..end].trim().to_string();
    let before = &sql[..query_start];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    let query_at = (line, column);
    let body = &tokens[at..];

    // Names the query defines for itself: `WITH a AS (...), b AS (...)`.
    let mut defined: Vec<String> = Vec::new();
    if body.first().is_some_and(|t| is_keyword(&t.1, "WITH")) {
        let mut i = 1;
        while let Some((name, next)) = table_at(body, i).ok().flatten() {
            if !body.get(next).is_some_and(|t| is_keyword(&t.1, "AS")) {
                break;
            }
            defined.push(name);
            // Past the parenthesised query, to a `,` (another one) or the main query.
            let mut depth = 0usize;
            i = next + 1;
            while let Some((_, t)) = body.get(i) {
                i += 1;
                match t {
                    Token::Other('(') => depth += 1,
                    Token::Other(')') => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if body.get(i).is_some_and(|t| t.1 == Token::Other(',')) {
                i += 1;
            } else {
                break;
            }
        }
    }

    let mut inputs: Vec<String> = Vec::new();
    let add = |name: String, inputs: &mut Vec<String>| {
        if !defined.contains(&name) && !inputs.contains(&name) {
            inputs.push(name);
        }
    };
    let mut i = 0;
    while i < body.len() {
        if is_keyword(&body[i].1, "FROM") || is_keyword(&body[i].1, "JOIN") {
            let mut j = i + 1;
            // `FROM a [AS] x, b [AS] y`: each name of the list.
            while let Some((name, next)) = table_at(body, j)? {
                add(name, &mut inputs);
                j = next;
                if body.get(j).is_some_and(|t| is_keyword(&t.1, "AS")) {
                    j += 1;
                }
                if matches!(body.get(j).map(|t| &t.1), Some(Token::Word(w)) if !is_clause(w)) {
                    j += 1;
                }
                if body.get(j).is_some_and(|t| t.1 == Token::Other(',')) {
                    j += 1;
                } else {
                    break;
                }
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    Ok(Statement { output, query, inputs, query_at })
}

/// Flink's message about `prefix` followed by the query of `statement` (a statement klens
/// wrapped the query in), its `line L, column C` places moved to where they are in the
/// statement as its author wrote it.
pub fn placed_in_statement(message: &str, prefix: &str, statement: &Statement) -> String {
    let (query_line, query_column) = statement.query_at;
    let width = prefix.chars().count();
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + "line ".len()..];
        let digits = |t: &str| t.chars().take_while(char::is_ascii_digit).collect::<String>();
        let line = digits(tail);
        let after_line = &tail[line.len()..];
        let moved = after_line.strip_prefix(", column ").and_then(|t| {
            let column = digits(t);
            let (l, c) = (line.parse::<usize>().ok()?, column.parse::<usize>().ok()?);
            // Flink echoes what the statement holds: numbers of any size, checked.
            let (l, c) = if l == 1 {
                (query_line, c.checked_sub(width)?.checked_add(query_column)?.saturating_sub(1))
            } else {
                (query_line.checked_add(l)?.checked_sub(1)?, c)
            };
            Some((format!("line {l}, column {c}"), &t[column.len()..]))
        });
        match moved {
            Some((text, remaining)) => {
                out.push_str(&text);
                rest = remaining;
            }
            None => {
                out.push_str("line ");
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Words that end a FROM item rather than alias it.
fn is_clause(word: &str) -> bool {
    const CLAUSES: &[&str] = &[
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "JOIN",
        "INNER",
        "LEFT",
        "RIGHT",
        "FULL",
        "CROSS",
        "ON",
        "UNION",
        "EXCEPT",
        "INTERSECT",
        "WINDOW",
        "FOR",
        "MATCH_RECOGNIZE",
    ];
    CLAUSES.iter().any(|c| word.eq_ignore_ascii_case(c))
}

/// The tables Flink's plan (`EXPLAIN PLAN FOR ...`) scans and writes, from its
/// `LogicalTableScan(table=[[catalog, database, name]])` and `LogicalSink(table=[catalog.
/// database.name], ...)` lines, each once. The whole plan is read (a name or literal of the
/// statement can print anything into it, but can only add entries, which the checks after this
/// refuse, never hide one); a table of another catalog or a hint anywhere in it is refused.
pub fn plan_tables(plan: &str) -> Result<(Vec<String>, Vec<String>), String> {
    const DEFAULT_SCAN: &str = "[[default_catalog, default_database, ";
    const DEFAULT_SINK: &str = "[default_catalog.default_database.";
    if plan.contains("hints=[") {
        return Err("Flink's plan carries a hint; a processor takes none".to_string());
    }
    let mut scans: Vec<String> = Vec::new();
    let mut sinks: Vec<String> = Vec::new();
    for (marker, prefix, out) in
        [("TableScan(table=", DEFAULT_SCAN, &mut scans), ("Sink(table=", DEFAULT_SINK, &mut sinks)]
    {
        for (at, _) in plan.match_indices(marker) {
            let rest = &plan[at + marker.len()..];
            let Some(rest) = rest.strip_prefix(prefix) else {
                return Err("Flink's plan uses a table of another catalog; a processor reads \
                            and writes topics of its own cluster only"
                    .to_string());
            };
            // A scan may go on with `, metadata=[...]`; a topic's name has no `,` or `]`.
            let name = rest.split([']', ',']).next().unwrap_or_default().to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    Ok((scans, sinks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_query_and_inputs_of_a_statement() {
        let s = parse(
            "INSERT INTO `big-orders` SELECT o.order_id, c.name FROM orders AS o \
             JOIN `customers.v2` c ON o.customer = c.id WHERE o.total > 500;",
        )
        .expect("parsed");
        assert_eq!(s.output, "big-orders");
        assert_eq!(s.inputs, ["orders", "customers.v2"]);
        assert!(s.query.starts_with("SELECT o.order_id"));
        assert!(s.query.ends_with("o.total > 500"));
    }

    #[test]
    fn lists_after_from_comments_strings_and_defined_names() {
        let s = parse(
            "insert into out (a, b)\n-- FROM hidden\nWITH recent AS (SELECT * FROM `orders` /* FROM \
             other */) SELECT 'FROM fake', x FROM recent r, payments p, `ledger` WHERE x IN \
             (SELECT y FROM refunds)",
        )
        .expect("parsed");
        assert_eq!(s.output, "out");
        assert_eq!(s.inputs, ["orders", "payments", "ledger", "refunds"]);
    }

    #[test]
    fn refuses_what_is_not_one_insert_into_a_topic() {
        for (sql, says) in [
            ("SELECT * FROM orders", "one INSERT INTO"),
            ("INSERT INTO SELECT 1", "needs the topic"),
            ("INSERT INTO out", "needs a query"),
            ("INSERT INTO out SELECT * FROM a; DROP TABLE a", "one statement"),
            ("INSERT INTO cat.db.out SELECT * FROM a", "catalog"),
            ("INSERT INTO out SELECT * FROM cat.db.a", "catalog"),
            ("INSERT INTO out SELECT 'open FROM a", "not closed"),
            ("INSERT INTO `out SELECT 1", "not closed"),
            ("INSERT INTO out SELECT 1 /* open", "not closed"),
            ("INSERT INTO out SELECT * FROM a /*+ OPTIONS('topic'='b') */", "hints"),
            ("INSERT INTO out /*+ OPTIONS('topic'='b') */ SELECT * FROM a", "hints"),
            ("INSERT INTO out SELECT * FROM a // '\n/*+ OPTIONS('topic'='b') */", "hints"),
        ] {
            let error = parse(sql).expect_err(sql);
            assert!(error.contains(says), "{sql}: {error}");
        }
        assert!(parse(&"x".repeat(MAX_STATEMENT + 1)).is_err());
    }

    #[test]
    fn places_in_a_wrapped_query_are_moved_to_the_statement() {
        let s = parse("INSERT INTO out\nSELECT a,\n  b FROM secret").expect("parsed");
        assert_eq!(s.query_at, (2, 1));
        let prefix = "CREATE TEMPORARY VIEW v AS ";
        let message = "From line 2, column 10 to line 2, column 15: Object 'secret' not found; \
                       at line 1, column 28";
        assert_eq!(
            placed_in_statement(message, prefix, &s),
            "From line 3, column 10 to line 3, column 15: Object 'secret' not found; at line 2, \
             column 1"
        );
        let same_line = parse("INSERT INTO out SELECT x FROM t").expect("parsed");
        assert_eq!(same_line.query_at, (1, 17));
        assert_eq!(
            placed_in_statement("at line 1, column 30", prefix, &same_line),
            "at line 1, column 19"
        );
        assert_eq!(placed_in_statement("a line 7 here", prefix, &same_line), "a line 7 here");
    }

    /// Statements made of the pieces the scanner branches on, in any order and cut anywhere
    /// (multi-byte characters too): every one is read or refused, never a panic.
    #[test]
    fn fuzz_any_statement_is_read_or_refused() {
        const PIECES: &[&str] = &[
            "INSERT",
            " INTO ",
            "`",
            "``",
            "'",
            "''",
            "\"",
            "/*",
            "*/",
            "/*+",
            "--",
            "\n",
            "(",
            ")",
            ",",
            ";",
            ".",
            " FROM ",
            " JOIN ",
            " WITH ",
            " AS ",
            "é",
            "名",
            "🦀",
            "a",
            "x_1",
            " ",
            "line 1, column 3",
            "line ",
        ];
        let mut random = crate::fuzz::Inputs::new(0x7175_6572_7973_716c, 64);
        for _ in 0..crate::fuzz::cases(20_000) {
            let n = (random.next_u64() % 24) as usize;
            let text: String = (0..n)
                .map(|_| PIECES[(random.next_u64() % PIECES.len() as u64) as usize])
                .collect();
            let parsed = parse(&format!("INSERT INTO t {text}"));
            let _ = parse(&text);
            if let Ok(statement) = parsed {
                let _ = placed_in_statement(&text, "CREATE VIEW v AS ", &statement);
            }
            let _ = plan_tables(&format!(
                "LogicalTableScan(table=[[default_catalog, default_database, {text}"
            ));
        }
    }

    #[test]
    fn a_quoted_name_keeps_its_doubled_backtick() {
        let s = parse("INSERT INTO `a``b` SELECT * FROM `c`").expect("parsed");
        assert_eq!(s.output, "a`b");
        assert_eq!(s.inputs, ["c"]);
    }

    #[test]
    fn the_tables_a_plan_scans_and_writes() {
        let plan = "== Abstract Syntax Tree ==\nLogicalSink(table=[default_catalog.default_database.big-orders], fields=[a])\n+- LogicalProject(a=[$0])\n   +- LogicalJoin(condition=[true])\n      :- LogicalTableScan(table=[[default_catalog, default_database, orders, metadata=[partition, offset]]])\n      +- LogicalTableScan(table=[[default_catalog, default_database, customers.v2]])\n\n== Optimized Physical Plan ==\nSink(table=[default_catalog.default_database.big-orders])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]])\nLogicalTableScan(table=[[default_catalog, default_database, not-in-the-tree]])\n";
        // A name or literal can print a line into the plan: it adds an entry (which the service
        // then refuses), it hides none.
        let (scans, sinks) = plan_tables(plan).expect("read");
        assert_eq!(scans, ["orders", "customers.v2", "not-in-the-tree"]);
        assert_eq!(sinks, ["big-orders"]);
        let spoofed = "LogicalSink(table=[default_catalog.default_database.out], fields=[== Optimized])\n+- LogicalProject(x=['== Optimized'])\n   +- LogicalTableScan(table=[[default_catalog, default_database, secret]])\n";
        assert_eq!(plan_tables(spoofed).expect("read").0, ["secret"]);
        for refused in [
            "LogicalTableScan(table=[[other_catalog, db, t]])",
            "LogicalSink(table=[hive.db.t], fields=[a])",
            "LogicalTableScan(table=[[default_catalog, default_database, t]], hints=[[[OPTIONS inheritPath:[] options:{topic=x}]]])",
        ] {
            assert!(plan_tables(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn huge_places_in_flinks_message_are_left_as_they_are() {
        let s = parse("INSERT INTO out\nSELECT x FROM t").expect("parsed");
        let message = "Column 'line 18446744073709551615, column 1' not found";
        assert_eq!(placed_in_statement(message, "", &s), message);
    }
}
