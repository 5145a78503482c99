//! The gaskit duel. Until the combat layer lands, this example demonstrates
//! gameplay tag matching on the shipped CRADL taxonomy, and says so.
//!
//! Run: `cargo run --release --example duel`

use gaskit::prelude::*;

fn main() {
    println!("gaskit duel: the combat layer is not built yet.");
    println!("Showing gameplay tag matching on the shipped CRADL taxonomy instead.\n");

    let tags = TagRegistry::with_defaults();
    println!(
        "{} tags loaded from {} embedded files.\n",
        tags.len(),
        gaskit::DEFAULT_TAG_FILES.len()
    );

    let mut owned = TagCounts::new();
    for name in [
        "Status.InCombat",
        "Combat.Style.Aggressive",
        "Action.Modal.Banking",
    ] {
        let tag = tags.get(name).expect("shipped tag");
        let appeared = owned.add(tag);
        println!("grant {name:<28} present now: {appeared}");
    }
    println!("\nowned: {}\n", tags.format_set(owned.tags()));

    for name in [
        "Action.Modal",
        "Action.Modal.Banking",
        "Combat.Style",
        "Status.Dead",
        "Status",
    ] {
        let tag = tags.get(name).expect("shipped tag");
        println!(
            "has {name:<22} parent-aware: {:<5}  exact: {}",
            owned.tags().has(tag),
            owned.tags().has_exact(tag)
        );
    }

    let can_fight = TagQueryDef::parse(
        r#"(all: ["Status.InCombat"], none: ["Action.Modal", "Status.Dead"])"#,
        "duel",
        &tags,
    )
    .expect("valid query");
    println!(
        "\ncan fight (none of Action.Modal, Status.Dead): {}",
        can_fight.matches(owned.tags())
    );
    let banking = tags.get("Action.Modal.Banking").expect("shipped tag");
    let closed = owned.remove(banking).expect("held");
    println!(
        "close the bank (vanished: {closed}) -> can fight: {}",
        can_fight.matches(owned.tags())
    );
}
