//! Combat content compiled from its data files: each file's combat
//! sections read, every entry checked (names, tags, ranges, levels), and
//! every problem reported with its file and place; what passes becomes
//! a [`CombatDefs`].

use smallvec::SmallVec;

use super::data::{
    CombatKindData, CombatSettingsData, ItemData, SpellData, SpellbookData, WeaponData,
};
use super::defs::{
    CombatDefs, CombatKind, CombatSettings, DamageType, ItemDef, ItemId, Skill, SpellDef,
    SpellbookDef, Style, WeaponDef,
};
use super::native::{self, CombatTags};
use super::vec2::Vec2;
use crate::catalog::{ContentSection, Fingerprint, SectionCx};
use crate::diagnostics::{LoadErrors, SourceFile};
use crate::names::NameTable;
use crate::tags::{Tag, TagRegistry};
use crate::time::SimDuration;

/// The combat layer's view of one content file.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct CombatFile {
    combat: Option<CombatSettingsData>,
    kinds: Vec<CombatKindData>,
    items: Vec<ItemData>,
    spells: Vec<SpellData>,
    spellbooks: Vec<SpellbookData>,
}

/// The entries `pick` finds in each file, with their file, in load order.
fn each<'a, T>(
    files: &'a [(&'a SourceFile, CombatFile)],
    pick: impl Fn(&'a CombatFile) -> &'a [T],
) -> Vec<(&'a SourceFile, &'a T)> {
    files
        .iter()
        .flat_map(|(file, data)| pick(data).iter().map(move |entry| (*file, entry)))
        .collect()
}

/// Every combat section of every file, in load order.
struct CombatSources<'a> {
    settings: Vec<(&'a SourceFile, &'a CombatSettingsData)>,
    kinds: Vec<(&'a SourceFile, &'a CombatKindData)>,
    items: Vec<(&'a SourceFile, &'a ItemData)>,
    spells: Vec<(&'a SourceFile, &'a SpellData)>,
    spellbooks: Vec<(&'a SourceFile, &'a SpellbookData)>,
}

impl ContentSection for CombatDefs {
    const MODULE: &'static str = "the combat layer";
    const KEYS: &'static [&'static str] = &["combat", "kinds", "items", "spells", "spellbooks"];

    fn build(cx: &SectionCx<'_>, errors: &mut LoadErrors) -> Self {
        let files = cx.parse::<CombatFile>(errors);
        let sources = CombatSources {
            settings: each(&files, |data| data.combat.as_slice()),
            kinds: each(&files, |data| &data.kinds),
            items: each(&files, |data| &data.items),
            spells: each(&files, |data| &data.spells),
            spellbooks: each(&files, |data| &data.spellbooks),
        };
        let defs = CombatDefs::compile(sources, cx.tags, errors);
        check_attack_cooldown(cx, &defs, errors);
        defs
    }

    /// Every numbered name (kinds, items, spells, spellbooks), in id order.
    fn fingerprint(&self, hash: &mut Fingerprint) {
        for kind in &self.kinds {
            hash.write_name(&kind.name);
        }
        for item in &self.items {
            hash.write_name(&item.name);
        }
        for spell in &self.spells {
            hash.write_name(&spell.name);
        }
        for book in &self.spellbooks {
            hash.write_name(&book.name);
        }
    }
}

impl CombatDefs {
    fn compile(
        sources: CombatSources<'_>,
        registry: &TagRegistry,
        errors: &mut LoadErrors,
    ) -> CombatDefs {
        let natives = CombatTags::resolve_into(registry, "the combat layer", errors);
        let tags = &Tags {
            registry,
            natives: &natives,
        };
        let settings = compile_settings(&sources.settings, tags, errors);
        let mut kinds = vec![CombatKind::default_named("Default")];
        let mut kind_names = NameTable::new("combatant kind");
        let _ = kind_names.insert("Default");
        let mut default_given = false;
        for (file, data) in &sources.kinds {
            // `Default` is there from the start; content may restate it
            // once (a second would silently win).
            if data.name == "Default" && !std::mem::replace(&mut default_given, true) {
                kinds[0] = compile_kind(file, data, errors);
                continue;
            }
            if kind_names.insert(&data.name).is_err() {
                errors.push(file.error_at(
                    &data.name,
                    format!("combatant kind `{}` is defined twice", data.name),
                ));
                continue;
            }
            kinds.push(compile_kind(file, data, errors));
        }
        let mut item_names = NameTable::new("item");
        for (file, data) in &sources.items {
            if item_names.insert(&data.name).is_err() {
                errors.push(
                    file.error_at(&data.name, format!("item `{}` is defined twice", data.name)),
                );
            }
        }
        // Compile after every name is known, so spells can name runes in any file.
        let mut seen = std::collections::HashSet::new();
        let items = sources
            .items
            .iter()
            .filter(|(_, d)| seen.insert(d.name.as_str()))
            .map(|(file, data)| {
                compile_item(file, data, tags, settings.min_attack_interval, errors)
            })
            .collect();
        let mut spell_names = NameTable::new("spell");
        let mut spells = Vec::new();
        // The source of each spell kept, in step with `spells`.
        let mut spell_sources = Vec::new();
        for (file, data) in &sources.spells {
            if spell_names.insert(&data.name).is_err() {
                errors.push(file.error_at(
                    &data.name,
                    format!("spell `{}` is defined twice", data.name),
                ));
                continue;
            }
            let min = settings.min_attack_interval;
            spells.push(compile_spell(file, data, tags, &item_names, min, errors));
            spell_sources.push((file, data));
        }
        for (kind, count) in [
            ("combatant kind", kinds.len()),
            ("item", item_names.len()),
            ("spell", spell_names.len()),
        ] {
            crate::names::check_count(kind, count, errors);
        }
        let mut spellbooks: Vec<SpellbookDef> = Vec::new();
        for (file, data) in &sources.spellbooks {
            let Some(tag) = book_tag(file, &data.tag, tags, errors) else {
                continue;
            };
            if spellbooks.iter().any(|b| b.tag == tag) {
                errors.push(file.error_at(
                    &data.tag,
                    format!("spellbook `{}` is defined twice", data.tag),
                ));
                continue;
            }
            spellbooks.push(SpellbookDef {
                tag,
                name: data.name.clone(),
            });
        }
        // A default book the content names must be one it defines: every
        // new combatant starts in it.
        let named_default = (sources.settings.iter().rev())
            .find_map(|(file, data)| Some((file, data.default_spellbook.as_deref()?)));
        if let Some((file, name)) = named_default {
            if !spellbooks
                .iter()
                .any(|b| b.tag == settings.default_spellbook)
            {
                errors.push(file.error_at(
                    name,
                    format!("default_spellbook `{name}` is not defined (add it to `spellbooks`)"),
                ));
            }
        }
        for (spell, (file, data)) in spells.iter().zip(spell_sources) {
            if !spellbooks.iter().any(|b| b.tag == spell.book) {
                errors.push(file.error_after(
                    &data.name,
                    &data.book,
                    format!(
                        "spell `{}`: spellbook `{}` is not defined",
                        data.name, data.book
                    ),
                ));
            }
        }
        CombatDefs {
            tags: natives,
            settings,
            kinds,
            kind_names,
            items,
            item_names,
            spells,
            spell_names,
            spellbooks,
        }
    }
}

/// The registry for names, and combat's natives, while compiling.
struct Tags<'a> {
    registry: &'a TagRegistry,
    natives: &'a CombatTags,
}

impl std::ops::Deref for Tags<'_> {
    type Target = TagRegistry;

    fn deref(&self) -> &TagRegistry {
        self.registry
    }
}

impl std::ops::Index<crate::NativeTag<native::CombatNatives>> for Tags<'_> {
    type Output = Tag;

    fn index(&self, tag: crate::NativeTag<native::CombatNatives>) -> &Tag {
        &self.natives[tag]
    }
}

impl CombatKind {
    fn default_named(name: &str) -> Self {
        CombatKind {
            name: name.to_owned(),
            move_refresh_threshold_cm: 50.0,
            min_move_refresh_interval: SimDuration::from_millis(250),
            chase_poll_interval: SimDuration::from_millis(100),
            max_attackers: 3,
            line_of_sight_tolerance: SimDuration::from_secs(1),
        }
    }
}

fn seconds(
    file: &SourceFile,
    anchor: &str,
    what: &str,
    value: f64,
    errors: &mut LoadErrors,
) -> SimDuration {
    SimDuration::from_secs_f64(value).unwrap_or_else(|_| {
        errors.push(file.error_after(
            anchor,
            what,
            format!("{what} must be a number of seconds ≥ 0, found {value}"),
        ));
        SimDuration::ZERO
    })
}

/// [`seconds`], refused below `min` (written `min_text` in the error, after
/// `owner`, which names what holds the key when the anchor does not).
fn seconds_at_least(
    file: &SourceFile,
    anchor: &str,
    what: &str,
    value: f64,
    (min, min_text, owner): (SimDuration, &str, &str),
    errors: &mut LoadErrors,
) -> Option<SimDuration> {
    let read = seconds(file, anchor, what, value, errors);
    if read < min {
        errors.push(file.error_after(
            anchor,
            what,
            format!("{owner}{what} must be at least {min_text}, found {value}"),
        ));
        return None;
    }
    Some(read)
}

/// The hard floor of every combat interval: a millisecond.
const MIN_INTERVAL: SimDuration = SimDuration::from_millis(1);

/// Seconds for an interval that paces attacks: at least `min` (the
/// settings' `min_attack_interval`), so no content can make a loop spin.
fn attack_interval(
    (file, anchor): (&SourceFile, &str),
    what: &str,
    value: f64,
    min: SimDuration,
    errors: &mut LoadErrors,
) -> SimDuration {
    let interval = seconds(file, anchor, what, value, errors);
    if interval < min {
        errors.push(file.error_after(
            anchor,
            what,
            format!(
                "`{anchor}`: {what} must be at least {} s (min_attack_interval), found {value}",
                min.as_secs_f64()
            ),
        ));
        return min;
    }
    interval
}

/// The shared attack cooldown the combat layer stamps each swing's interval
/// with must take its duration from that stamp and grant the gate: an
/// edited `GE_Attack_Cooldown` (a constant duration, another tag) would
/// override every weapon's interval, or gate nothing, in silence.
fn check_attack_cooldown(cx: &SectionCx<'_>, defs: &CombatDefs, errors: &mut LoadErrors) {
    const NAME: &str = "GE_Attack_Cooldown";
    let Some(id) = cx.effects.get(NAME) else {
        return; // missing: the runtime says so when it is built
    };
    let gate = defs.tags[native::COOLDOWN_COMBAT_ATTACK];
    let effect = cx.effects.def(id);
    let stamped = matches!(
        effect.duration,
        crate::effects::DurationPolicy::Duration(crate::effects::Magnitude::SetByCaller(key))
            if gate.matches(key)
    );
    if stamped && effect.granted_tags.has(gate) {
        return;
    }
    let message = format!(
        "effect `{NAME}` must take its duration from SetByCaller(\"{0}\") and grant `{0}`: the combat layer stamps each swing's interval under that tag",
        cx.tags.name(gate)
    );
    let file = cx
        .files
        .iter()
        .find(|f| crate::diagnostics::locate_definition(&f.text, NAME, 0).is_some());
    errors.push(match file {
        Some(file) => file.error_at(NAME, message),
        None => crate::Diagnostic::error(NAME, message),
    });
}

/// `value`, or 0 with an error naming `what` when it is not finite.
fn finite_number(
    file: &SourceFile,
    anchor: &str,
    what: &str,
    value: f64,
    errors: &mut LoadErrors,
) -> f64 {
    number_that(
        file,
        anchor,
        what,
        value,
        "a finite number",
        f64::is_finite,
        errors,
    )
}

/// `value` when it is a finite number ≥ 0; otherwise an error at `what`,
/// and 0.
fn non_negative(
    file: &SourceFile,
    anchor: &str,
    what: &str,
    value: f64,
    errors: &mut LoadErrors,
) -> f64 {
    let valid = |v: f64| v.is_finite() && v >= 0.0;
    number_that(
        file,
        anchor,
        what,
        value,
        "a finite number ≥ 0",
        valid,
        errors,
    )
}

/// `value` when `valid` says it is `expected`; otherwise an error at
/// `what` saying so, and 0.
fn number_that(
    file: &SourceFile,
    anchor: &str,
    what: &str,
    value: f64,
    expected: &str,
    valid: impl Fn(f64) -> bool,
    errors: &mut LoadErrors,
) -> f64 {
    if valid(value) {
        return value;
    }
    errors.push(file.error_after(
        anchor,
        what,
        format!("{what} must be {expected}, found {value}"),
    ));
    0.0
}

fn compile_settings(
    sources: &[(&SourceFile, &CombatSettingsData)],
    tags: &Tags<'_>,
    errors: &mut LoadErrors,
) -> CombatSettings {
    let mut s = CombatSettings {
        melee_range_cm: 250.0,
        ranged_range_cm: 2000.0,
        magic_range_cm: 2000.0,
        unarmed_swing_interval: SimDuration::from_millis(2_400),
        min_attack_interval: SimDuration::from_millis(100),
        unarmed_damage_type: DamageType::Crush,
        ready_epsilon: SimDuration::ZERO,
        in_combat: SimDuration::from_secs(20),
        max_health_per_hitpoints_level: 4.0,
        max_health_curve: Vec::new(),
        death_item_retention: 3,
        respawn_position: Vec2::ZERO,
        default_spellbook: tags[native::SPELLBOOK_STANDARD],
        routing_aggressive: (4.0, 0.0),
        routing_defensive_melee: (0.0, 4.0),
        routing_defensive_other: (2.0, 2.0),
        routing_controlled: (2.0, 2.0),
        magic_xp_per_damage: 2.0,
        hitpoints_xp_per_damage: 4.0 / 3.0,
    };
    let anchor = "combat";
    for &(file, data) in sources {
        let set_non_negative =
            |value: Option<f64>, what: &str, slot: &mut f64, errors: &mut LoadErrors| {
                if let Some(v) = value {
                    *slot = non_negative(file, anchor, what, v, errors);
                }
            };
        set_non_negative(
            data.melee_range_cm,
            "melee_range_cm",
            &mut s.melee_range_cm,
            errors,
        );
        set_non_negative(
            data.ranged_range_cm,
            "ranged_range_cm",
            &mut s.ranged_range_cm,
            errors,
        );
        set_non_negative(
            data.magic_range_cm,
            "magic_range_cm",
            &mut s.magic_range_cm,
            errors,
        );
        set_non_negative(
            data.max_health_per_hitpoints_level,
            "max_health_per_hitpoints_level",
            &mut s.max_health_per_hitpoints_level,
            errors,
        );
        set_non_negative(
            data.magic_xp_per_damage,
            "magic_xp_per_damage",
            &mut s.magic_xp_per_damage,
            errors,
        );
        set_non_negative(
            data.hitpoints_xp_per_damage,
            "hitpoints_xp_per_damage",
            &mut s.hitpoints_xp_per_damage,
            errors,
        );
        if let Some(v) = data.min_attack_interval {
            let floor = (MIN_INTERVAL, "0.001 s", "");
            if let Some(min) =
                seconds_at_least(file, anchor, "min_attack_interval", v, floor, errors)
            {
                s.min_attack_interval = min;
            }
        }
        if let Some(v) = data.unarmed_swing_interval {
            s.unarmed_swing_interval = attack_interval(
                (file, anchor),
                "unarmed_swing_interval",
                v,
                s.min_attack_interval,
                errors,
            );
        }
        if let Some(v) = data.ready_epsilon {
            s.ready_epsilon = seconds(file, anchor, "ready_epsilon", v, errors);
        }
        if let Some(v) = data.in_combat_seconds {
            // The contract's floor: combat never lasts less than a second.
            let floor = (SimDuration::from_secs(1), "1", "");
            if let Some(in_combat) =
                seconds_at_least(file, anchor, "in_combat_seconds", v, floor, errors)
            {
                s.in_combat = in_combat;
            }
        }
        if let Some(curve) = &data.max_health_curve {
            s.max_health_curve = curve
                .iter()
                .map(|&v| non_negative(file, anchor, "max_health_curve", v, errors))
                .collect();
        }
        if let Some(n) = data.death_item_retention {
            s.death_item_retention = n;
        }
        if let Some((x, y)) = data.respawn_position {
            let x = finite_number(file, anchor, "respawn_position", x, errors);
            let y = finite_number(file, anchor, "respawn_position", y, errors);
            s.respawn_position = Vec2::new(x, y);
        }
        if let Some(name) = &data.unarmed_damage_type {
            if let Some(t) = damage_type(file, anchor, name, tags, errors) {
                s.unarmed_damage_type = t;
            }
        }
        if let Some(name) = &data.default_spellbook {
            if let Some(tag) = book_tag(file, name, tags, errors) {
                s.default_spellbook = tag;
            }
        }
        if let Some(r) = &data.routing {
            // Shares of XP: each a number ≥ 0 (a NaN passed the totals'
            // comparison below, and took every fighter's XP with it).
            let share = |(a, b): (f64, f64), errors: &mut LoadErrors| {
                (
                    non_negative(file, anchor, "routing", a, errors),
                    non_negative(file, anchor, "routing", b, errors),
                )
            };
            s.routing_aggressive = share(r.aggressive, errors);
            s.routing_defensive_melee = share(r.defensive_melee, errors);
            s.routing_defensive_other = share(r.defensive_other, errors);
            s.routing_controlled = share(r.controlled, errors);
            let r = &s;
            let totals = [
                r.routing_aggressive,
                r.routing_defensive_melee,
                r.routing_defensive_other,
                r.routing_controlled,
            ]
            .map(|(a, b)| a + b);
            if totals.iter().any(|t| (t - totals[0]).abs() > 1e-9) {
                errors.push(file.error_at("routing", format!(
                    "XP routing totals differ between styles ({totals:?}); total XP per damage must not depend on the style"
                )));
            }
        }
    }
    s
}

fn compile_kind(file: &SourceFile, data: &CombatKindData, errors: &mut LoadErrors) -> CombatKind {
    let name = data.name.as_str();
    let mut kind = CombatKind::default_named(name);
    if let Some(v) = data.move_refresh_threshold_cm {
        kind.move_refresh_threshold_cm =
            non_negative(file, name, "move_refresh_threshold_cm", v, errors);
    }
    if let Some(hz) = data.max_move_refresh_hz {
        if hz.is_finite() && hz > 0.0 {
            kind.min_move_refresh_interval =
                seconds(file, name, "max_move_refresh_hz", 1.0 / hz, errors);
        } else {
            errors.push(file.error_after(
                name,
                "max_move_refresh_hz",
                format!(
                    "combatant kind `{name}`: max_move_refresh_hz must be positive, found {hz}"
                ),
            ));
        }
    }
    if let Some(v) = data.chase_poll_seconds {
        let owner = format!("combatant kind `{name}`: ");
        let floor = (MIN_INTERVAL, "0.001 s", owner.as_str());
        if let Some(poll) = seconds_at_least(file, name, "chase_poll_seconds", v, floor, errors) {
            kind.chase_poll_interval = poll;
        }
    }
    if let Some(n) = data.max_attackers {
        kind.max_attackers = n;
    }
    if let Some(v) = data.line_of_sight_tolerance {
        kind.line_of_sight_tolerance = seconds(file, name, "line_of_sight_tolerance", v, errors);
    }
    kind
}

/// What `from_tag` makes of the tag `name` (written after `anchor`)
/// resolves to. An unknown tag is an error at `name`, and so is a tag
/// `from_tag` makes nothing of, with the message `not_one` gives.
fn tag_value<T>(
    file: &SourceFile,
    anchor: &str,
    name: &str,
    tags: &Tags<'_>,
    from_tag: impl FnOnce(&CombatTags, Tag) -> Option<T>,
    not_one: impl FnOnce() -> String,
    errors: &mut LoadErrors,
) -> Option<T> {
    let tag = match tags.resolve_in(name, &file.name, &file.text) {
        Ok(tag) => tag,
        Err(e) => {
            errors.push(e.at_text_after(&file.text, anchor, name));
            return None;
        }
    };
    let found = from_tag(tags.natives, tag);
    if found.is_none() {
        errors.push(file.error_after(anchor, name, not_one()));
    }
    found
}

fn damage_type(
    file: &SourceFile,
    anchor: &str,
    name: &str,
    tags: &Tags<'_>,
    errors: &mut LoadErrors,
) -> Option<DamageType> {
    let not_one = || {
        format!(
            "`{name}` is not a damage type (Combat.DamageType.Stab, Slash, Crush, Ranged or Magic)"
        )
    };
    tag_value(
        file,
        anchor,
        name,
        tags,
        DamageType::from_tag,
        not_one,
        errors,
    )
}

fn style(
    file: &SourceFile,
    anchor: &str,
    name: &str,
    tags: &Tags<'_>,
    errors: &mut LoadErrors,
) -> Option<Style> {
    let not_one = || format!("`{name}` is not a combat style");
    tag_value(file, anchor, name, tags, Style::from_tag, not_one, errors)
}

fn book_tag(
    file: &SourceFile,
    name: &str,
    tags: &Tags<'_>,
    errors: &mut LoadErrors,
) -> Option<Tag> {
    let tag = match tags.resolve_in(name, &file.name, &file.text) {
        Ok(tag) => tag,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    if !tags.name(tag).starts_with("Spellbook.") {
        errors.push(file.error_at(
            name,
            format!("`{name}` is not a spellbook tag (Spellbook.*)"),
        ));
        return None;
    }
    Some(tag)
}

fn bonuses(
    file: &SourceFile,
    item: &str,
    map: &std::collections::BTreeMap<String, i32>,
    tags: &Tags<'_>,
    errors: &mut LoadErrors,
) -> [i32; 5] {
    let mut out = [0; 5];
    for (key, value) in map {
        if let Some(t) = damage_type(file, item, key, tags, errors) {
            out[t.index()] = *value;
        }
    }
    out
}

fn compile_item(
    file: &SourceFile,
    data: &ItemData,
    tags: &Tags<'_>,
    min_interval: SimDuration,
    errors: &mut LoadErrors,
) -> ItemDef {
    let name = data.name.as_str();
    let slot = data
        .slot
        .as_ref()
        .and_then(|s| match tags.resolve_in(s, &file.name, &file.text) {
            Ok(tag) if tags.name(tag).starts_with("Item.Slot.") => Some(tag),
            Ok(_) => {
                errors.push(file.error_after(
                    name,
                    s,
                    format!("item `{name}`: `{s}` is not an equipment slot (Item.Slot.*)"),
                ));
                None
            }
            Err(e) => {
                errors.push(e.at_text_after(&file.text, name, s));
                None
            }
        });
    let attack_bonus = bonuses(file, name, &data.attack_bonus, tags, errors);
    let defense_bonus = bonuses(file, name, &data.defense_bonus, tags, errors);
    let requirements = data
        .requirements
        .iter()
        .filter_map(|(skill, level)| {
            let not_one = || format!("item `{name}`: `{skill}` is not a combat skill");
            tag_value(file, name, skill, tags, Skill::from_tag, not_one, errors)
                .map(|s| (s, *level))
        })
        .collect();
    let weapon = data.weapon.as_ref().and_then(|w| {
        let weapon = (name, w, &attack_bonus);
        compile_weapon(file, weapon, tags, min_interval, errors)
    });
    if weapon.is_some() && slot != Some(tags[native::ITEM_SLOT_WEAPON]) {
        errors.push(file.error_at(
            name,
            format!("item `{name}` has weapon data but is not in Item.Slot.Weapon"),
        ));
    }
    if data.weapon.is_none() && slot == Some(tags[native::ITEM_SLOT_WEAPON]) {
        errors.push(file.error_at(
            name,
            format!("item `{name}` is in Item.Slot.Weapon but has no `weapon:` data (it would fight as bare hands)"),
        ));
    }
    if !data.magic_damage.is_finite() {
        errors.push(file.error_after(
            name,
            "magic_damage",
            format!("item `{name}`: magic_damage must be finite"),
        ));
    }
    if let Some(heals) = data.heals {
        non_negative(file, name, "heals", heals, errors);
    }
    ItemDef {
        name: name.to_owned(),
        slot,
        value: data.value.unwrap_or(0),
        attack_bonus,
        defense_bonus,
        strength: data.strength,
        ranged_strength: data.ranged_strength,
        magic_damage: if data.magic_damage.is_finite() {
            data.magic_damage
        } else {
            0.0
        },
        requirements,
        weapon,
        heals: data.heals.filter(|h| h.is_finite() && *h >= 0.0),
    }
}

fn compile_weapon(
    file: &SourceFile,
    (item, data, attack_bonus): (&str, &WeaponData, &[i32; 5]),
    tags: &Tags<'_>,
    min_interval: SimDuration,
    errors: &mut LoadErrors,
) -> Option<WeaponDef> {
    let Some(type_name) = &data.damage_type else {
        errors.push(file.error_at(item, format!("weapon `{item}` has no damage_type")));
        return None;
    };
    let Some(swing) = data.swing_interval else {
        errors.push(file.error_at(item, format!("weapon `{item}` has no swing_interval")));
        return None;
    };
    let weapon_type = damage_type(file, item, type_name, tags, errors)?;
    let swing_interval =
        attack_interval((file, item), "swing_interval", swing, min_interval, errors);
    let attack_range_cm = non_negative(file, item, "attack_range", data.attack_range, errors);
    if attack_range_cm == 0.0 {
        errors.push(file.warning_at(item, format!(
            "weapon `{item}` has attack_range 0: it uses the settings fallback for {type_name}; set it to make that intentional"
        )));
    }
    let mut style_damage_types: SmallVec<[(Style, DamageType); 3]> = SmallVec::new();
    for (style_name, type_name) in &data.style_damage_types {
        let (Some(s), Some(t)) = (
            style(file, item, style_name, tags, errors),
            damage_type(file, item, type_name, tags, errors),
        ) else {
            continue;
        };
        // Styles choose among the melee axes only: a ranged or magic
        // weapon swings its one damage type whatever the style.
        if weapon_type.skill() != Skill::Melee || t.skill() != Skill::Melee {
            errors.push(file.error_after(
                item,
                style_name,
                format!(
                    "weapon `{item}`: style `{style_name}` maps to {type_name}; only a melee weapon maps styles, and only to Stab, Slash or Crush"
                ),
            ));
            continue;
        }
        if style_damage_types
            .iter()
            .any(|(existing, _)| *existing == s)
        {
            errors.push(file.error_after(
                item,
                style_name,
                format!("weapon `{item}`: style `{style_name}` is mapped twice"),
            ));
            continue;
        }
        if attack_bonus[t.index()] == 0 {
            errors.push(file.warning_after(item, type_name, format!(
                "weapon `{item}`: style `{style_name}` swings {type_name}, an axis with no attack bonus"
            )));
        }
        style_damage_types.push((s, t));
    }
    let default_style = data
        .default_style
        .as_ref()
        .and_then(|s| style(file, item, s, tags, errors));
    Some(WeaponDef {
        damage_type: weapon_type,
        swing_interval,
        attack_range_cm,
        style_damage_types,
        default_style,
        uses_ammo: data.uses_ammo,
    })
}

fn compile_spell(
    file: &SourceFile,
    data: &SpellData,
    tags: &Tags<'_>,
    items: &NameTable,
    min_interval: SimDuration,
    errors: &mut LoadErrors,
) -> SpellDef {
    let name = data.name.as_str();
    let book = book_tag(file, &data.book, tags, errors).unwrap_or(tags[native::COMBAT_STYLE]);
    let mut runes: SmallVec<[(ItemId, u32); 3]> = SmallVec::new();
    for (rune, count) in &data.runes {
        match items.resolve_in(rune, &file.name, &file.text) {
            // Each rune once: the cost check reads each entry against the
            // inventory on its own, so a repeat would pass on one stack.
            Ok(i) if runes.iter().any(|(r, _)| r.index() == i) => {
                errors.push(file.error_after(
                    name,
                    rune,
                    format!("spell `{name}`: rune `{rune}` is listed twice; give its count once"),
                ));
            }
            Ok(i) => runes.push((ItemId::new(i), *count)),
            Err(e) => errors.push(e.at_text_after(&file.text, name, rune)),
        }
    }
    let cast_interval = attack_interval(
        (file, name),
        "cast_interval",
        data.cast_interval,
        min_interval,
        errors,
    );
    if data.base_damage > data.max_damage {
        errors.push(file.error_after(
            name,
            "base_damage",
            format!("spell `{name}`: base_damage is above max_damage"),
        ));
    }
    let hit_cue = match &data.hit_cue {
        Some(cue) => match tags.resolve_in(cue, &file.name, &file.text) {
            Ok(tag) if tags.name(tag).starts_with("GameplayCue.") => tag,
            Ok(_) => {
                errors.push(file.error_after(
                    name,
                    cue,
                    format!("spell `{name}`: hit cue `{cue}` must live under GameplayCue.*"),
                ));
                tags[native::CUE_HIT_MAGIC]
            }
            Err(e) => {
                errors.push(e.at_text_after(&file.text, name, cue));
                tags[native::CUE_HIT_MAGIC]
            }
        },
        None => tags[native::CUE_HIT_MAGIC],
    };
    SpellDef {
        name: name.to_owned(),
        book,
        runes,
        base_damage: data.base_damage,
        max_damage: data.max_damage,
        required_level: data.required_level,
        cast_interval,
        cast_range_cm: non_negative(file, name, "cast_range_cm", data.cast_range_cm, errors),
        hit_cue,
    }
}
