//! Gameplay tags: hierarchy, sets, queries, counted tags and every load error.

use gaskit::combat::TAG_FILES;
use gaskit::prelude::*;
use gaskit::{Severity, TagQueryDef, CORE_TAG_FILES};

fn registry() -> TagRegistry {
    gaskit::combat::default_tag_registry_builder()
        .build()
        .unwrap()
}

fn tag(registry: &TagRegistry, name: &str) -> Tag {
    registry
        .get(name)
        .unwrap_or_else(|| panic!("{name} is in the shipped taxonomy"))
}

fn set(registry: &TagRegistry, names: &[&str]) -> TagSet {
    names.iter().map(|n| tag(registry, n)).collect()
}

fn build(text: &str) -> Result<TagRegistry, LoadErrors> {
    let mut builder = gaskit::combat::default_tag_registry_builder();
    builder.add_source("test.tags", text);
    builder.build()
}

fn only_error(result: Result<TagRegistry, LoadErrors>) -> gaskit::Diagnostic {
    let errors = result.expect_err("the source is invalid");
    assert_eq!(errors.0.len(), 1, "exactly one diagnostic: {errors}");
    errors.0[0].clone()
}

// ---------------------------------------------------------------- hierarchy

#[test]
fn shipped_taxonomy_covers_every_cradl_namespace() {
    let r = registry();
    for name in [
        "Combat.DamageType.Stab",
        "Combat.Style.Controlled",
        "Combat.Event.EnterCombat",
        "Combat.Spec",
        "GameplayCue.Combat.Hit.Magic",
        "GameplayCue.Combat.Death",
        "Action.Trigger.Combat.Engage",
        "Action.Trigger.Combat.AutocastSet",
        "Action.Combat.AutoAttack",
        "Action.Modal.Banking",
        "Cooldown.Combat.Attack",
        "Cooldown.Combat.Cast",
        "Status.Dead",
        "Status.InCombat",
        "State.Moving",
        "Item.Slot.Ammo",
        "Skill.Combat.Hitpoints",
        "Spellbook.Standard",
    ] {
        assert!(r.get(name).is_some(), "{name} missing");
    }
    assert_eq!(CORE_TAG_FILES.len(), 1, "the core's failure reasons");
    assert_eq!(TAG_FILES.len(), 11, "combat: one file per namespace");
}

#[test]
fn parents_exist_implicitly_and_matching_is_hierarchical() {
    let r = registry();
    let slash = tag(&r, "Combat.DamageType.Slash");
    let damage_type = tag(&r, "Combat.DamageType");
    let combat = tag(&r, "Combat");
    assert!(slash.matches(damage_type));
    assert!(slash.matches(combat));
    assert!(slash.matches(slash));
    assert!(
        !damage_type.matches(slash),
        "a parent does not match its child"
    );
    assert!(
        !slash.matches(tag(&r, "Combat.DamageType.Stab")),
        "siblings do not match"
    );
    assert!(
        !slash.matches(tag(&r, "GameplayCue.Combat")),
        "same leaf name elsewhere does not match"
    );
    assert!(slash.matches_exact(slash) && !slash.matches_exact(damage_type));
    assert_eq!(r.parent(slash), Some(damage_type));
    assert_eq!(r.parent(combat), None);
    assert!(
        r.origin(damage_type).is_none(),
        "implicit parents have no origin"
    );
    assert_eq!(r.origin(slash).unwrap().file, "tags/combat.tags");
    let children: Vec<&str> = r.children(damage_type).map(|t| r.name(t)).collect();
    assert_eq!(
        children,
        [
            "Combat.DamageType.Crush",
            "Combat.DamageType.Magic",
            "Combat.DamageType.Ranged",
            "Combat.DamageType.Slash",
            "Combat.DamageType.Stab"
        ]
    );
}

#[test]
fn subtree_numbering_agrees_with_names_for_every_pair() {
    // Tricky neighbours: `A.B` vs `A.B_C` vs `A.BC` vs `A.B.C`.
    let r = build("X.A\nX.A.B\nX.A_B\nX.AB\nX.A.B.C\nX.A0\nX.Ac\n").unwrap();
    for a in r.iter() {
        for b in r.iter() {
            let (na, nb) = (r.name(a), r.name(b));
            let by_name = na == nb || na.starts_with(&format!("{nb}."));
            assert_eq!(a.matches(b), by_name, "{na} matches {nb}");
        }
    }
}

#[test]
fn comments_are_kept_and_duplicate_lines_merge() {
    let r =
        build("Status.Poisoned\nStatus.Poisoned # loses health over time\nStatus.Poisoned # later comment\n")
            .unwrap();
    let poisoned = tag(&r, "Status.Poisoned");
    assert_eq!(r.comment(poisoned), Some("loses health over time"));
    assert_eq!(r.origin(poisoned).unwrap().line, 1);
    assert_eq!(
        r.comment(tag(&r, "Status.Dead")),
        Some("Source of truth for \"is this entity dead right now\"")
    );
    assert_eq!(r.len(), registry().len() + 1);
}

#[test]
fn native_tags_resolve_to_their_names() {
    let r = registry();
    for native in gaskit::native::ALL {
        assert_eq!(r.name(r[*native]), native.name());
    }
    let combat = gaskit::NativeTags::<gaskit::combat::CombatNatives>::resolve(&r).unwrap();
    for native in gaskit::combat::native::ALL {
        assert_eq!(r.name(combat[*native]), native.name());
    }
}

#[test]
fn the_core_registry_holds_only_the_core_reasons() {
    let core = gaskit::TagRegistry::core();
    for native in gaskit::native::ALL {
        assert_eq!(core.name(core[*native]), native.name());
    }
    assert!(core.get("Combat").is_none() && core.get("Status").is_none());
    // A module's set resolved against it names every missing tag.
    let missing = gaskit::NativeTags::<gaskit::combat::CombatNatives>::resolve(&core).unwrap_err();
    assert!(missing.0.len() > 10, "{missing}");
    assert!(missing
        .to_string()
        .contains("`Combat.DamageType.Slash` is required by gaskit"));
}

// ---------------------------------------------------------------- sets

#[test]
fn has_is_parent_aware_and_has_exact_is_not() {
    let r = registry();
    let owned = set(&r, &["Action.Modal.Banking", "Status.Stunned"]);
    assert!(owned.has(tag(&r, "Action.Modal")));
    assert!(owned.has(tag(&r, "Action")));
    assert!(owned.has(tag(&r, "Action.Modal.Banking")));
    assert!(!owned.has(tag(&r, "Action.Modal.Trading")));
    assert!(!owned.has(tag(&r, "Action.Combat")));
    assert!(!owned.has_exact(tag(&r, "Action.Modal")));
    assert!(owned.has_exact(tag(&r, "Status.Stunned")));
    let parent_only = set(&r, &["Action.Modal"]);
    assert!(
        !parent_only.has(tag(&r, "Action.Modal.Banking")),
        "holding a parent is not holding its children"
    );
}

#[test]
fn any_and_all_follow_gas_semantics_including_empty_arguments() {
    let r = registry();
    let owned = set(&r, &["Action.Modal.Banking", "Status.Stunned"]);
    let empty = TagSet::new();
    assert!(
        !owned.has_any(&empty) && !owned.has_any_exact(&empty),
        "any of nothing is false"
    );
    assert!(
        owned.has_all(&empty) && owned.has_all_exact(&empty),
        "all of nothing is true"
    );
    assert!(!empty.has_any(&owned) && !empty.has_all(&owned));
    assert!(empty.has_all(&empty));

    let modal_or_dead = set(&r, &["Action.Modal", "Status.Dead"]);
    assert!(owned.has_any(&modal_or_dead));
    assert!(!owned.has_any_exact(&modal_or_dead));
    assert!(!owned.has_all(&modal_or_dead));

    let modal_and_stunned = set(&r, &["Action.Modal", "Status.Stunned"]);
    assert!(owned.has_all(&modal_and_stunned));
    assert!(!owned.has_all_exact(&modal_and_stunned));
    assert!(owned.has_all_exact(&set(&r, &["Status.Stunned"])));
}

#[test]
fn sets_insert_remove_and_compare_as_sets() {
    let r = registry();
    let dead = tag(&r, "Status.Dead");
    let last = r.by_index(r.len() - 1).unwrap();
    let mut a = TagSet::new();
    assert!(a.insert(last) && a.insert(dead));
    assert!(!a.insert(dead), "second insert is a no-op");
    assert_eq!(a.len(), 2);
    assert!(a.remove(last));
    assert!(!a.remove(last));
    assert_eq!(
        a,
        set(&r, &["Status.Dead"]),
        "equality ignores the history of high ids"
    );
    assert_eq!(a.iter().collect::<Vec<_>>(), vec![dead]);
    a.clear();
    assert!(a.is_empty() && !a.has(dead));
}

#[test]
fn high_tag_ids_beyond_the_inline_bitset_work() {
    // 600 extra tags push ids past 512: the bitset spills to the heap.
    let text: String = (0..600)
        .map(|i| format!("Zz.Generated.T{i:03}\n"))
        .collect();
    let r = build(&text).unwrap();
    let high = tag(&r, "Zz.Generated.T599");
    assert!(high.index() > 256);
    let mut owned = TagSet::new();
    owned.insert(high);
    assert!(
        owned.has(tag(&r, "Zz")) && owned.has(tag(&r, "Zz.Generated")) && owned.has_exact(high)
    );
    assert!(!owned.has(tag(&r, "Zz.Generated.T598")));
}

// ---------------------------------------------------------------- queries

fn query(r: &TagRegistry, ron: &str) -> TagQuery {
    TagQueryDef::parse(ron, "query.ron", r).unwrap()
}

#[test]
fn queries_evaluate_all_any_none_and_nesting() {
    let r = registry();
    let fighting = set(&r, &["Status.InCombat", "Combat.Style.Aggressive"]);
    let banking = set(&r, &["Status.InCombat", "Action.Modal.Banking"]);
    let nothing = TagSet::new();

    let can_swing = query(
        &r,
        r#"(all: ["Status.InCombat"], none: ["Status.Dead", "Action.Modal"])"#,
    );
    assert!(can_swing.matches(&fighting));
    assert!(!can_swing.matches(&banking), "none: is parent-aware");
    assert!(!can_swing.matches(&nothing));

    let styled = query(
        &r,
        r#"(any: ["Combat.Style.Defensive", "Combat.Style.Aggressive"])"#,
    );
    assert!(styled.matches(&fighting) && !styled.matches(&banking));

    let nested = query(
        &r,
        r#"(any_of: [(all: ["Combat.Style"]), (all: ["Action.Modal"], none: ["Status.Dead"])], none_of: [(all: ["Status.Stunned"])])"#,
    );
    assert!(nested.matches(&fighting) && nested.matches(&banking) && !nested.matches(&nothing));
    let mut stunned = fighting.clone();
    stunned.insert(tag(&r, "Status.Stunned"));
    assert!(!nested.matches(&stunned));

    let all_of = query(
        &r,
        r#"(all_of: [(all: ["Status"]), (any: ["Combat", "Action"])])"#,
    );
    assert!(all_of.matches(&fighting) && !all_of.matches(&nothing));
}

#[test]
fn empty_query_matches_everything() {
    let r = registry();
    let empty = query(&r, "()");
    assert!(empty.is_empty());
    assert!(empty.matches(&TagSet::new()));
    assert!(empty.matches(&set(&r, &["Status.Dead"])));
    assert_eq!(empty, TagQuery::new());
}

#[test]
fn queries_built_in_code_match_the_data_form() {
    let r = registry();
    let from_code = TagQuery::new()
        .require_all([tag(&r, "Status.InCombat")])
        .forbid([tag(&r, "Status.Dead"), tag(&r, "Action.Modal")]);
    let from_data = query(
        &r,
        r#"(all: ["Status.InCombat"], none: ["Status.Dead", "Action.Modal"])"#,
    );
    assert_eq!(from_code, from_data);
}

#[test]
fn query_with_unknown_field_or_bad_syntax_is_located() {
    let r = registry();
    let error =
        TagQueryDef::parse("(all: [\"Status.Dead\"],\n nope: [])", "q.ron", &r).unwrap_err();
    let d = &error.0[0];
    assert_eq!((d.file.as_str(), d.line), ("q.ron", 2));
    assert!(d.message.contains("nope"), "{d}");

    let error = TagQueryDef::parse("(all: [\"Status.Dead\"", "q.ron", &r).unwrap_err();
    assert_eq!(error.0[0].line, 1);
}

#[test]
fn every_unknown_tag_in_a_query_is_reported_with_position_and_suggestion() {
    let r = registry();
    let text =
        "(\n    all: [\"Status.Ded\"],\n    none_of: [(any: [\"Combat.DamageType.Slsh\"])],\n)";
    let errors = TagQueryDef::parse(text, "abilities/x.ron", &r).unwrap_err();
    assert_eq!(errors.0.len(), 2);
    let first = &errors.0[0];
    assert_eq!((first.line, first.column), (2, 12));
    assert_eq!(first.suggestion.as_deref(), Some("Status.Dead"));
    assert_eq!(first.snippet.as_deref(), Some("    all: [\"Status.Ded\"],"));
    let second = &errors.0[1];
    assert_eq!((second.line, second.column), (3, 23));
    assert_eq!(
        second.suggestion.as_deref(),
        Some("Combat.DamageType.Slash")
    );
    assert!(second
        .to_string()
        .contains("did you mean `Combat.DamageType.Slash`?"));
}

// ---------------------------------------------------------------- counted

#[test]
fn counted_tags_report_presence_changes_only_at_zero_and_one() {
    let r = registry();
    let stunned = tag(&r, "Status.Stunned");
    let mut owned = TagCounts::new();
    assert!(owned.add(stunned), "0 -> 1");
    assert!(!owned.add(stunned), "1 -> 2 is not a presence change");
    assert_eq!(owned.count(stunned), 2);
    assert_eq!(owned.remove(stunned), Ok(false), "2 -> 1");
    assert!(owned.tags().has(stunned));
    assert_eq!(owned.remove(stunned), Ok(true), "1 -> 0");
    assert!(!owned.tags().has(stunned));
    assert_eq!(
        owned.remove(stunned),
        Err(gaskit::NotHeld(stunned)),
        "releasing an absent tag errs"
    );
    assert_eq!(owned.count(stunned), 0);
}

#[test]
fn batch_changes_name_leaves_and_parents_are_queried_from_them() {
    let r = registry();
    let mut owned = TagCounts::new();
    owned.add(tag(&r, "Action.Modal.Banking"));
    let grant = set(
        &r,
        &[
            "Action.Modal.Banking",
            "Action.Modal.Trading",
            "Status.Stunned",
        ],
    );
    let appeared = owned.add_all(&grant);
    assert_eq!(
        appeared,
        set(&r, &["Action.Modal.Trading", "Status.Stunned"])
    );
    // An observer of the parent learns which leaf arrived.
    assert!(appeared.has(tag(&r, "Action.Modal")));
    assert!(!appeared.has_exact(tag(&r, "Action.Modal")));

    let gone = owned.remove_all(&grant).unwrap();
    assert_eq!(gone, set(&r, &["Action.Modal.Trading", "Status.Stunned"]));
    assert_eq!(owned.count(tag(&r, "Action.Modal.Banking")), 1);
}

#[test]
fn remove_all_is_all_or_nothing() {
    let r = registry();
    let mut owned = TagCounts::new();
    owned.add(tag(&r, "Status.Stunned"));
    let before = owned.clone();
    let dead = tag(&r, "Status.Dead");
    let result = owned.remove_all(&set(&r, &["Status.Stunned", "Status.Dead"]));
    assert_eq!(result, Err(gaskit::NotHeld(dead)));
    assert_eq!(owned, before, "nothing was released");
}

// ---------------------------------------------------------------- bad input

#[test]
fn malformed_names_are_located_errors() {
    let cases: &[(&str, u32, &str)] = &[
        ("Combat..Stab", 7, "empty segment"),
        ("  Status.Very Dead", 14, "spaces"),
        (".Status.Dead", 1, "start with a dot"),
        ("Status.Dead.", 12, "end with a dot"),
        ("Status.Dead-ish", 12, "`-` is not allowed"),
        ("Statüs.Dead", 5, "`ü` is not allowed"),
    ];
    for &(line, column, reason) in cases {
        let d = only_error(build(&format!("Status.Fine\n{line}  # comment\n")));
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(
            (d.file.as_str(), d.line, d.column),
            ("test.tags", 2, column),
            "{line}"
        );
        assert!(d.message.contains(reason), "{line}: {}", d.message);
        assert_eq!(
            d.snippet.as_deref(),
            Some(format!("{line}  # comment").as_str())
        );
    }
}

/// Names that differ only in case would be one tag to a designer (and
/// to Unreal) but two here: the later spelling is a located error naming
/// the first, whether the clash is in the name or in a parent.
#[test]
fn a_tag_spelled_as_another_but_for_its_case_is_a_located_error() {
    let cases: &[(&str, u32, &str)] = &[
        (
            "Status.poisoned",
            1,
            "`Status.poisoned` differs only in case from `Status.Poisoned` (test.tags:1)",
        ),
        (
            "status.Blind",
            1,
            "`status` differs only in case from `Status` (tags/status.tags:",
        ),
        (
            "  Status.POISONED.Deep",
            3,
            "`Status.POISONED` differs only in case from `Status.Poisoned` (test.tags:1)",
        ),
    ];
    for &(line, column, says) in cases {
        let d = only_error(build(&format!("Status.Poisoned\n{line}  # typo\n")));
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(
            (d.file.as_str(), d.line, d.column),
            ("test.tags", 2, column),
            "{line}"
        );
        assert!(d.message.contains(says), "{line}: {}", d.message);
    }
    // Across files, and against the shipped taxonomy's own tags.
    let mut builder = gaskit::combat::default_tag_registry_builder();
    builder.add_source("mine.tags", "Game.Quest\nstatus.Dead\n");
    let d = only_error(builder.build());
    assert_eq!((d.file.as_str(), d.line), ("mine.tags", 2));
    assert!(d.message.contains("from `Status`"), "{}", d.message);
    // The same spelling twice is one tag, as before.
    assert!(build("Game.Quest\nGame.Quest.Done\nGame.Quest\n").is_ok());
}

#[test]
fn all_errors_of_a_file_are_reported_together() {
    let errors = build("A..B\nGood.Tag\n.C\nD E\n").unwrap_err();
    let lines: Vec<u32> = errors.0.iter().map(|d| d.line).collect();
    assert_eq!(lines, [1, 3, 4]);
}

#[test]
fn non_utf8_input_is_an_error_not_a_panic() {
    let mut builder = gaskit::combat::default_tag_registry_builder();
    builder.add_bytes("bad.tags", b"Status.Fine\nStatus.\xFFBad\n");
    let d = only_error(builder.build());
    assert_eq!((d.line, d.column), (2, 8));
    assert!(d.message.contains("0xFF"), "{}", d.message);
}

#[test]
fn huge_inputs_are_rejected_cleanly() {
    // More distinct tags than ids: one clear error.
    let text: String = (0..70_000).map(|i| format!("Bulk.T{i}\n")).collect();
    let d = only_error(build(&text));
    assert!(d.message.contains("at most"), "{}", d.message);
    // A very long line and binary noise are errors, never panics.
    let long = format!("A.{}\n", "b".repeat(1_000_000));
    assert!(
        build(&long).is_ok(),
        "a long but valid name is still a name"
    );
    // A name of tens of thousands of segments (each a parent tag named
    // in full) is refused at once, not read into gigabytes.
    let deep = format!("{}a\n", "a.".repeat(70_000));
    let d = only_error(build(&deep));
    assert!(
        d.message.contains("at most 32 segments, this one 70001"),
        "{}",
        d.message
    );
    let deepest = format!("{}a\n", "a.".repeat(31));
    assert!(build(&deepest).is_ok(), "32 segments is a name");
    let noise: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut builder = gaskit::combat::default_tag_registry_builder();
    builder.add_bytes("noise.tags", &noise);
    assert!(builder.build().is_err());
}

#[test]
fn missing_native_tags_fail_the_build_by_name() {
    let mut builder = TagRegistryBuilder::new();
    builder.add_source("mine.tags", "Only.Mine\n");
    let errors = builder.build().unwrap_err();
    assert_eq!(errors.0.len(), gaskit::native::ALL.len());
    assert!(errors
        .to_string()
        .contains("`Activation.Fail.Cooldown` is required by gaskit"));
}

#[test]
fn unknown_names_suggest_the_nearest_tag() {
    let r = registry();
    let unknown = r.resolve("Cooldown.Combat.Atack").unwrap_err();
    assert_eq!(
        unknown.suggestion.as_deref(),
        Some("Cooldown.Combat.Attack")
    );
    assert_eq!(
        r.resolve("Totally.Unrelated.Words").unwrap_err().suggestion,
        None
    );
}

#[test]
fn tag_files_load_from_a_directory_in_name_order() {
    let dir = std::env::temp_dir().join(format!("gaskit-tags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("b.tags"), "Game.B # from b\n").unwrap();
    std::fs::write(dir.join("a.tags"), "Game.A\nGame.B # from a\n").unwrap();
    std::fs::write(dir.join("ignored.txt"), "not a tag file at all ...\n").unwrap();
    let mut builder = gaskit::combat::default_tag_registry_builder();
    builder.add_dir(&dir);
    let r = builder.build().unwrap();
    let b = tag(&r, "Game.B");
    assert_eq!(r.comment(b), Some("from a"), "a.tags loads first");
    assert!(r.origin(b).unwrap().file.ends_with("a.tags"));

    let mut builder = gaskit::combat::default_tag_registry_builder();
    builder.add_file(dir.join("missing.tags"));
    assert!(builder
        .build()
        .unwrap_err()
        .to_string()
        .contains("cannot read tag file"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shipped_files_on_disk_match_the_embedded_copy() {
    for (path, text) in CORE_TAG_FILES.iter().chain(TAG_FILES) {
        let on_disk = std::fs::read_to_string(path).unwrap();
        assert_eq!(&on_disk, text, "{path}");
    }
}

#[test]
fn has_agrees_with_member_matching_for_random_sets() {
    // Wide subtrees spanning many bitset words, sets of every density.
    let text: String = (0..300)
        .map(|i| format!("Wide.Group{}.T{i:03}\n", i % 3))
        .chain((0..40).map(|i| format!("Deep.L1.L2.L3.T{i}\n")))
        .collect();
    let r = build(&text).unwrap();
    let all: Vec<Tag> = r.iter().collect();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..200 {
        let density = 1 + round % 50;
        let owned: TagSet = all
            .iter()
            .copied()
            .filter(|_| next() % 100 < density as u64)
            .collect();
        for &probe in &all {
            let naive = owned.iter().any(|member| member.matches(probe));
            assert_eq!(owned.has(probe), naive, "round {round}, {}", r.name(probe));
            assert_eq!(owned.has_exact(probe), owned.iter().any(|m| m == probe));
        }
    }
}

#[test]
fn small_and_large_sets_answer_every_query_alike() {
    // Up to six members a set scans its list; past that it also keeps a
    // bitset, and keeps it when members are removed again. Every query must
    // agree with plain member matching on both sides of that line, and for
    // each pairing of the two forms.
    let text: String = (0..150)
        .map(|i| format!("Wide.Group{}.T{i:03}\n", i % 3))
        .collect();
    let r = build(&text).unwrap();
    let all: Vec<Tag> = r.iter().collect();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let mut grown: Vec<TagSet> = Vec::new();
    for round in 0..300 {
        // Grow to a random size (some past six), then shrink some back.
        let mut set = TagSet::new();
        let mut members: Vec<Tag> = Vec::new();
        for _ in 0..next(12) {
            let tag = all[next(all.len())];
            assert_eq!(set.insert(tag), !members.contains(&tag));
            if !members.contains(&tag) {
                members.push(tag);
            }
        }
        for _ in 0..next(10) {
            if members.is_empty() {
                break;
            }
            let tag = members.swap_remove(next(members.len()));
            assert!(set.remove(tag), "round {round}: a member is removed");
        }
        members.sort_by_key(|t| t.index());
        assert_eq!(set.iter().collect::<Vec<_>>(), members, "round {round}");
        let rebuilt: TagSet = members.iter().copied().collect();
        assert_eq!(set, rebuilt, "round {round}: equality is by members");
        for other in grown.iter().rev().take(8) {
            let naive_has = |probe: Tag| members.iter().any(|m| m.matches(probe));
            let naive_exact = |probe: Tag| members.contains(&probe);
            assert_eq!(set.has_any(other), other.iter().any(naive_has));
            assert_eq!(set.has_all(other), other.iter().all(naive_has));
            assert_eq!(set.has_any_exact(other), other.iter().any(naive_exact));
            assert_eq!(set.has_all_exact(other), other.iter().all(naive_exact));
        }
        // Subsets, and subsets with one stranger, exercise the true side
        // of the exact superset test.
        let part: TagSet = members.iter().copied().step_by(2).collect();
        assert!(set.has_all_exact(&part), "round {round}: a subset");
        let stranger = all[next(all.len())];
        let mut with_stranger = part.clone();
        with_stranger.insert(stranger);
        assert_eq!(
            set.has_all_exact(&with_stranger),
            members.contains(&stranger),
            "round {round}: a subset and {stranger:?}"
        );
        for &probe in all.iter().step_by(7) {
            assert_eq!(set.has(probe), members.iter().any(|m| m.matches(probe)));
            assert_eq!(set.has_exact(probe), members.contains(&probe));
        }
        // A clone (members copied as one block) is the same set and
        // answers every query alike.
        let copy = set.clone();
        assert_eq!(copy, set, "round {round}: a clone");
        assert_eq!(copy.iter().collect::<Vec<_>>(), members, "round {round}");
        for &probe in all.iter().step_by(7) {
            assert_eq!(copy.has(probe), set.has(probe), "round {round}");
            assert_eq!(copy.has_exact(probe), set.has_exact(probe));
        }
        grown.push(set);
    }
}

#[test]
fn sets_save_their_members_with_bits_and_refuse_bits_that_disagree() {
    let r = registry();
    let few = set(&r, &["Status.Dead", "Status.Stunned"]);
    // Seven members: the set keeps its bitset; removing two keeps it still.
    let mut many: TagSet = r.iter().take(7).collect();
    let dropped: Vec<Tag> = many.iter().take(2).collect();
    for tag in dropped {
        many.remove(tag);
    }
    let small_twin: TagSet = many.iter().collect();
    let saved = ron::to_string(&many).unwrap();
    assert_eq!(
        saved,
        ron::to_string(&small_twin).unwrap(),
        "the saved form does not depend on how the set is held"
    );
    for original in [&few, &many] {
        let text = ron::to_string(original).unwrap();
        assert!(text.starts_with("(bits:["), "saved shape: {text}");
        let back: TagSet = ron::from_str(&text).unwrap();
        assert_eq!(&back, original);
    }
    // The same members under a wrong bit.
    let text = ron::to_string(&few).unwrap();
    let bits_start = text.find('[').unwrap() + 1;
    let bits_end = text.find(']').unwrap();
    let wrong = format!("{}1{}", &text[..bits_start], &text[bits_end..]);
    let error = ron::from_str::<TagSet>(&wrong).unwrap_err().to_string();
    assert!(error.contains("bits do not match"), "{error}");
}

/// A tag read back from text (a save, a client's event) round-trips when
/// a registry made it, and is refused when its subtree would not hold it:
/// such a tag made a parent-aware `has` on a large set slice backwards.
#[test]
fn a_malformed_tag_is_refused_when_read() {
    let registry = registry();
    let slash = tag(&registry, "Combat.DamageType.Slash");
    let text = ron::to_string(&slash).unwrap();
    assert_eq!(ron::from_str::<Tag>(&text).unwrap(), slash);
    for (text, id, end) in [
        ("(id: 127, end: 1)", 127, 1),
        ("(id: 9, end: 9)", 9, 9),
        ("(id: 0, end: 0)", 0, 0),
    ] {
        let error = ron::from_str::<Tag>(text).unwrap_err().to_string();
        assert!(
            error.contains(&format!("tag {id} ends its subtree at {end}")),
            "{error}"
        );
    }
    // Inside a larger value too: the set a save keeps.
    let set: TagSet = registry.iter().skip(1).take(8).collect();
    let saved = ron::to_string(&set).unwrap();
    assert_eq!(ron::from_str::<TagSet>(&saved).unwrap(), set);
    let first = set.iter().next().unwrap();
    let (id, end) = (first.index(), first.subtree_end());
    let written = format!("(id:{id},end:{end})");
    assert!(saved.contains(&written), "{saved}");
    let tampered = saved.replacen(&written, &format!("(id:{id},end:0)"), 1);
    let error = ron::from_str::<TagSet>(&tampered).unwrap_err().to_string();
    assert!(
        error.contains(&format!("tag {id} ends its subtree at 0")),
        "{error}"
    );
}
