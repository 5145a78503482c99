//! Data-only abilities: grant the shipped sample abilities (a 20 s haste on
//! a 60 s cooldown, a heal), fire gameplay events at them, and print the
//! trace. No code names what the abilities do; it is all in
//! `abilities/samples.ron`.
//!
//! Run: `cargo run --example abilities`

use gaskit::prelude::*;

fn main() {
    let mut world = hecs::World::new();
    let mut gas = Gas::new(gaskit::combat::default_catalog());
    let hero = world.spawn((Name("hero".into()), gas.new_ability_system()));

    let catalog = gas.catalog_arc().clone();
    for name in ["GA_Haste", "GA_Heal"] {
        let ability = catalog.abilities().get(name).expect("shipped sample");
        gas.grant_ability(&mut world, hero, ability, 1)
            .expect("hero has an ability system");
    }
    let tags = catalog.tags();
    let buff = GameplayEvent::new(
        tags.get("Action.Trigger.Ability.Buff")
            .expect("shipped tag"),
    );
    let heal = GameplayEvent::new(
        tags.get("Action.Trigger.Ability.Heal")
            .expect("shipped tag"),
    );

    // Take a hit so the heal has something to do.
    let damage = catalog.effects().get("GE_Damage").expect("shipped effect");
    let slash = tags.get("Combat.DamageType.Slash").unwrap();
    gas.apply_effect(
        &mut world,
        hero,
        EffectSpec::new(damage).with_set_by_caller(slash, 15.0),
    )
    .expect("valid spec");

    // A timeline of button presses; each event is handled at its own instant.
    let at = |secs: f64| SimTime::from_secs_f64(secs).expect("valid time");
    gas.send_event_at(at(1.0), hero, buff);
    gas.send_event_at(at(2.0), hero, heal);
    gas.send_event_at(at(5.0), hero, buff); // still on cooldown
    gas.send_event_at(at(6.0), hero, heal); // still on cooldown
    gas.send_event_at(at(12.0), hero, heal);
    gas.send_event_at(at(61.0), hero, buff);
    gas.advance_to(&mut world, at(90.0));

    print!(
        "{}",
        gaskit::render_text(&world, &catalog, gas.trace().events())
    );
    let health = catalog
        .attributes()
        .get("Health")
        .expect("shipped attribute");
    let system = world.get::<&AbilitySystem>(hero).expect("hero exists");
    println!("\nhero ends with {} health", system.current(health));
}
