//! Checking a scenario against a catalog: every name resolved once, every
//! problem located in the scenario file.

use std::collections::HashMap;

use smallvec::SmallVec;

use super::data::{ActionData, CombatantData, ScenarioData};
use super::fit::{level_problem, modal_problem, skills_at, stun_problem, worn_problem};
use super::SCENARIO_ABILITIES;
use crate::abilities::AbilityId;
use crate::attributes::AttributeId;
use crate::catalog::Catalog;
use crate::combat::{self, CombatDefs, ItemId, KindId, Skill, Skills, SpellId, Style, Vec2};
use crate::diagnostics::{locate_field, nearest, Diagnostic, LoadErrors, SourceFile};
use crate::tags::Tag;
use crate::time::{SimDuration, SimTime};
use crate::trace::{TraceCategory, TraceFilter};

/// A fighter, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct CombatantSpec {
    /// Trace name.
    pub name: String,
    /// Kind.
    pub kind: KindId,
    /// Level for every skill.
    pub level: Option<u32>,
    /// Per-skill levels.
    pub levels: SmallVec<[(Skill, u32); 5]>,
    /// Worn items.
    pub equipment: Vec<(ItemId, u32)>,
    /// Carried items.
    pub inventory: Vec<(ItemId, u32)>,
    /// Style.
    pub style: Style,
    /// Spellbook.
    pub spellbook: Option<Tag>,
    /// Autocast spell.
    pub autocast: Option<SpellId>,
    /// Start position.
    pub position: Vec2,
    /// Mover speed.
    pub speed: f64,
    /// Base attribute overrides.
    pub attributes: Vec<(AttributeId, f64)>,
    /// Owning client.
    pub owner: Option<u32>,
    /// Every ability granted at spawn: the standard set less `withhold`,
    /// plus `grant`, in that order.
    pub abilities: Vec<AbilityId>,
}

/// An input, resolved; fighters are indices into the combatant list.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Engage event.
    Engage(usize, usize),
    /// Cast event.
    Cast(usize, usize, SpellId),
    /// Set-style event.
    SetStyle(usize, Tag),
    /// Disengage event.
    Disengage(usize),
    /// Autocast-set event.
    Autocast(usize, Option<SpellId>),
    /// Eat event.
    Eat(usize, ItemId),
    /// Any gameplay event.
    Event(usize, Tag),
    /// Move order.
    Move(usize, Vec2),
    /// Open a modal (loose tag).
    OpenModal(usize, Tag),
    /// Close a modal.
    CloseModal(usize, Tag),
    /// Stun for a time.
    Stun(usize, f64),
    /// Equip from the inventory.
    Equip(usize, ItemId),
    /// Save the profile.
    Save(usize),
    /// Despawn.
    Despawn(usize),
}

/// A scenario checked against a catalog, ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// RNG seed.
    pub seed: u64,
    /// How long to run.
    pub duration: SimDuration,
    /// Frame step.
    pub step: SimDuration,
    /// The categories the trace records.
    pub trace_filter: TraceFilter,
    /// Fighters.
    pub combatants: Vec<CombatantSpec>,
    /// Inputs sorted by time (file order at equal times).
    pub timeline: Vec<(SimTime, Action)>,
}

impl Scenario {
    /// Parses and checks the scenario in `text` (the contents of `file`).
    pub fn parse(text: &str, file: &str, catalog: &Catalog) -> Result<Scenario, LoadErrors> {
        let data: ScenarioData = crate::ron_format::from_str(text, file)?;
        let source = SourceFile {
            name: file.to_owned(),
            text: text.to_owned(),
        };
        Self::compile(&data, &source, catalog)
    }

    /// Checks parsed scenario data; `source` locates problems.
    pub fn compile(
        data: &ScenarioData,
        source: &SourceFile,
        catalog: &Catalog,
    ) -> Result<Scenario, LoadErrors> {
        let mut errors = LoadErrors::default();
        let Some(combat) = catalog.section::<CombatDefs>() else {
            return Err(Diagnostic::error(
                &source.name,
                "scenarios need the combat layer's content (build the catalog with gaskit::combat::add_content)",
            )
            .into());
        };
        let mut cx = Resolver {
            catalog,
            combat,
            source,
            errors: &mut errors,
            entry: None,
        };
        let seconds = |cx: &mut Resolver<'_>, what: &str, value: f64| {
            SimDuration::from_secs_f64(value).unwrap_or_else(|_| {
                cx.errors.push(source.error_at_field(
                    what,
                    format!(
                        "{what} must be a number of seconds from 0 to {}, found {value}",
                        SimDuration::MAX.as_secs_f64()
                    ),
                ));
                SimDuration::ZERO
            })
        };
        let duration = seconds(&mut cx, "duration", data.duration);
        let mut step = seconds(&mut cx, "step", data.step);
        if step.is_zero() {
            cx.errors
                .push(source.error_at_field("step", "step must be positive"));
            step = SimDuration::from_millis(50);
        }
        let trace_filter = match &data.trace {
            None => TraceFilter::only([
                TraceCategory::ABILITIES,
                combat::COMBAT,
                combat::MOVEMENT,
                TraceCategory::ATTRIBUTES,
            ]),
            Some(names) => names.iter().fold(TraceFilter::NONE, |filter, name| {
                cx.category(name).map_or(filter, |c| filter | c)
            }),
        };
        let mut names = Roster::default();
        // Each combatant's findings are located from its `name`, so one
        // without a name is an error of the list itself.
        for (index, c) in data.combatants.iter().enumerate() {
            if c.name.is_empty() {
                cx.errors.push(source.error_at_field(
                    "combatants",
                    format!("combatant #{} has no `name`", index + 1),
                ));
            }
            if !names.add(&c.name) {
                cx.entry = Some(("name", index));
                cx.report(&c.name, format!("combatant `{}` is listed twice", c.name));
            }
        }
        let combatants = (data.combatants.iter().enumerate())
            .map(|(index, c)| {
                cx.entry = Some(("name", index));
                cx.combatant(c)
            })
            .collect();
        let mut timeline: Vec<(SimTime, Action)> = Vec::new();
        // Each input's findings are located from its `at`.
        for (index, input) in data.timeline.iter().enumerate() {
            cx.entry = Some(("at", index));
            let at = SimTime::from_secs_f64(input.at).unwrap_or_else(|_| {
                cx.report(
                    "at",
                    format!(
                        "input time must be a number of seconds from 0 to {}, found {}",
                        SimTime::MAX.as_secs_f64(),
                        input.at
                    ),
                );
                SimTime::ZERO
            });
            // One past the end would never run.
            if at > SimTime::ZERO + duration {
                cx.report(
                    "at",
                    format!(
                        "input at {} s comes after the scenario ends ({} s)",
                        input.at, data.duration
                    ),
                );
            }
            if let Some(action) = cx.action(&input.action, &names) {
                timeline.push((at, action));
            }
        }
        // Stable: equal times keep file order.
        timeline.sort_by_key(|(at, _)| *at);
        errors.into_result(Scenario {
            seed: data.seed,
            duration,
            step,
            trace_filter,
            combatants,
            timeline,
        })
    }
}

/// The combatants' names in file order, with an index by name (a scenario
/// may list tens of thousands).
#[derive(Default)]
struct Roster<'a> {
    names: Vec<&'a str>,
    index: HashMap<&'a str, usize>,
}

impl<'a> Roster<'a> {
    /// Adds a name; `false` when it is listed already (the first keeps its
    /// index).
    fn add(&mut self, name: &'a str) -> bool {
        let index = self.names.len();
        self.names.push(name);
        match self.index.entry(name) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(index);
                true
            }
        }
    }
}

struct Resolver<'a> {
    catalog: &'a Catalog,
    combat: &'a CombatDefs,
    source: &'a SourceFile,
    errors: &'a mut LoadErrors,
    /// The part being resolved, as the field that begins each entry of
    /// its list and its index there (a combatant's `name`, a timeline
    /// input's `at`), so its findings are located in it and not at the
    /// first text like them.
    entry: Option<(&'static str, usize)>,
}

impl Resolver<'_> {
    /// An error located at the first `needle` in the [entry](Self::entry)
    /// being resolved, or in the whole file when there is none after the
    /// entry's start (a combatant whose `name` is not its first field).
    /// The entry is found only here: a scenario of forty thousand fighters
    /// looks through its text once per finding, not once per fighter.
    fn error_at(&self, needle: &str, message: impl Into<String>) -> Diagnostic {
        let text = &self.source.text;
        let from = self
            .entry
            .and_then(|(field, index)| locate_field(text, field, index))
            .unwrap_or(0);
        Diagnostic::error(&self.source.name, message).at_text_from(text, from, needle)
    }

    /// Pushes [`error_at`](Self::error_at)'s error.
    fn report(&mut self, needle: &str, message: impl Into<String>) {
        let error = self.error_at(needle, message);
        self.errors.push(error);
    }

    fn unknown(&mut self, what: &str, name: &str, candidates: Vec<String>) {
        let suggestion = nearest(name, candidates.iter().map(String::as_str));
        self.errors.push(
            self.error_at(name, format!("unknown {what} `{name}`"))
                .suggest(suggestion),
        );
    }

    fn tag(&mut self, name: &str) -> Option<Tag> {
        match self
            .catalog
            .tags()
            .resolve_in(name, &self.source.name, &self.source.text)
        {
            Ok(tag) => Some(tag),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// `found`, or `None` with an error naming `what` and suggesting the
    /// nearest of `all` (listed only when the name is unknown).
    fn known<T>(
        &mut self,
        what: &str,
        name: &str,
        found: Option<T>,
        all: impl FnOnce() -> Vec<String>,
    ) -> Option<T> {
        if found.is_none() {
            self.unknown(what, name, all());
        }
        found
    }

    fn item(&mut self, name: &str) -> Option<ItemId> {
        let combat = self.combat;
        self.known("item", name, combat.item_named(name), || {
            combat
                .item_ids()
                .filter_map(|i| combat.item(i))
                .map(|i| i.name.clone())
                .collect()
        })
    }

    fn spell(&mut self, name: &str) -> Option<SpellId> {
        let combat = self.combat;
        self.known("spell", name, combat.spell_named(name), || {
            combat
                .spell_ids()
                .filter_map(|s| combat.spell(s))
                .map(|s| s.name.clone())
                .collect()
        })
    }

    fn category(&mut self, name: &str) -> Option<TraceCategory> {
        let all = [
            ("Effects", TraceCategory::EFFECTS),
            ("Attributes", TraceCategory::ATTRIBUTES),
            ("Cues", TraceCategory::CUES),
            ("Abilities", TraceCategory::ABILITIES),
            ("Combat", combat::COMBAT),
            ("Movement", combat::MOVEMENT),
            ("Progress", combat::PROGRESS),
        ];
        let found = all.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
        if found.is_none() {
            self.unknown(
                "trace category",
                name,
                all.iter().map(|(n, _)| n.to_string()).collect(),
            );
        }
        found
    }

    fn items(&mut self, list: &[(String, u32)]) -> Vec<(ItemId, u32)> {
        list.iter()
            .filter_map(|(name, q)| Some((self.item(name)?, *q)))
            .collect()
    }

    /// [`items`](Self::items) that are worn: one that cannot be worn as
    /// listed by a fighter with `skills` (no slot, none of it, a slot
    /// already taken, a skill too low) is an error naming the combatant
    /// (it would be dropped, or put on past the rules, otherwise).
    fn worn(
        &mut self,
        combatant: &str,
        skills: &Skills,
        list: &[(String, u32)],
    ) -> Vec<(ItemId, u32)> {
        let mut worn = Vec::new();
        let mut slots = Vec::new();
        for (name, quantity) in list {
            let Some(item) = self.item(name) else {
                continue;
            };
            let tags = self.catalog.tags();
            match worn_problem(self.combat, tags, skills, &mut slots, item, *quantity) {
                Some(why) => self.report(name, format!("combatant `{combatant}`: {why}")),
                None => worn.push((item, *quantity)),
            }
        }
        worn
    }

    fn combatant(&mut self, data: &CombatantData) -> CombatantSpec {
        let tags = self.catalog.tags();
        let combat = self.combat;
        let kind = match &data.kind {
            None => combat.default_kind(),
            Some(name) => self
                .known("combatant kind", name, combat.kind_named(name), || {
                    combat
                        .kind_ids()
                        .map(|k| combat.kind(k).name.clone())
                        .collect()
                })
                .unwrap_or_else(|| combat.default_kind()),
        };
        if let Some(why) = data.level.and_then(level_problem) {
            self.report("level", format!("combatant `{}`: {why}", data.name));
        }
        let mut levels = SmallVec::new();
        for (skill, level) in &data.levels {
            if let Some(why) = level_problem(*level) {
                self.report(skill, format!("combatant `{}`: {why}", data.name));
            }
            match self
                .tag(skill)
                .and_then(|t| Skill::from_tag(&combat.tags, t))
            {
                Some(s) => levels.push((s, *level)),
                None if tags.get(skill).is_some() => {
                    self.report(skill, format!("`{skill}` is not a combat skill"));
                }
                None => {}
            }
        }
        let style = match &data.style {
            None => Style::Aggressive,
            Some(name) => self.style(name).unwrap_or(Style::Aggressive),
        };
        let spellbook = data.spellbook.as_deref().and_then(|book| {
            let tag = self.tag(book)?;
            if !combat.is_known_book(tag) {
                self.report(
                    book,
                    format!("`{book}` is not a spellbook of the catalog's"),
                );
                return None;
            }
            Some(tag)
        });
        // A body the mover can move: where it stands, finite, and how fast,
        // a number ≥ 0.
        let (x, y) = data.position;
        if !(x.is_finite() && y.is_finite()) {
            self.report(
                "position",
                format!(
                    "combatant `{}`: position must be finite, found ({x}, {y})",
                    data.name
                ),
            );
        }
        if !(data.speed.is_finite() && data.speed >= 0.0) {
            self.report(
                "speed",
                format!(
                    "combatant `{}`: speed must be a number ≥ 0, found {}",
                    data.name, data.speed
                ),
            );
        }
        let attributes = data
            .attributes
            .iter()
            .filter_map(|(name, value)| {
                let id = self
                    .catalog
                    .attributes()
                    .resolve_in(name, self.source)
                    .map_err(|e| self.errors.push(e))
                    .ok()?;
                if !value.is_finite() {
                    self.report(name, format!("attribute `{name}` override must be finite"));
                    return None;
                }
                Some((id, *value))
            })
            .collect();
        let skills = skills_at(data.level, &levels);
        let equipment = self.worn(&data.name, &skills, &data.equipment);
        CombatantSpec {
            name: data.name.clone(),
            kind,
            level: data.level,
            levels,
            equipment,
            inventory: self.items(&data.inventory),
            style,
            spellbook,
            autocast: data.autocast.as_deref().and_then(|s| self.spell(s)),
            position: Vec2::new(data.position.0, data.position.1),
            speed: data.speed,
            attributes,
            owner: data.owner,
            abilities: self.abilities(data),
        }
    }

    /// The modal `name` names, or `None` with an error.
    fn modal(&mut self, name: &str) -> Option<Tag> {
        let tag = self.tag(name)?;
        if let Some(why) = modal_problem(self.combat, self.catalog.tags(), tag) {
            self.report(name, why);
            return None;
        }
        Some(tag)
    }

    /// The combat style `name` names, or `None` with an error.
    fn style(&mut self, name: &str) -> Option<Style> {
        let tag = self.tag(name)?;
        let style = Style::from_tag(&self.combat.tags, tag);
        if style.is_none() {
            self.report(name, format!("`{name}` is not a combat style"));
        }
        style
    }

    fn abilities(&mut self, data: &CombatantData) -> Vec<AbilityId> {
        let catalog = self.catalog;
        for name in &data.withhold {
            if !SCENARIO_ABILITIES.contains(&name.as_str()) {
                let standard = SCENARIO_ABILITIES.iter().map(|n| n.to_string()).collect();
                self.unknown("standard ability", name, standard);
            }
        }
        let standard = SCENARIO_ABILITIES
            .iter()
            .filter(|name| !data.withhold.iter().any(|w| w == *name))
            .filter_map(|name| catalog.abilities().get(name));
        let granted: Vec<AbilityId> = data
            .grant
            .iter()
            .filter_map(|name| {
                catalog
                    .abilities()
                    .resolve_in(name, self.source)
                    .map_err(|e| self.errors.push(e))
                    .ok()
            })
            .collect();
        standard.chain(granted).collect()
    }

    fn who(&mut self, name: &str, names: &Roster<'_>) -> Option<usize> {
        let found = names.index.get(name).copied();
        if found.is_none() {
            self.unknown(
                "combatant",
                name,
                names.names.iter().map(|n| n.to_string()).collect(),
            );
        }
        found
    }

    fn action(&mut self, action: &ActionData, names: &Roster<'_>) -> Option<Action> {
        Some(match action {
            ActionData::Engage(a, b) => Action::Engage(self.who(a, names)?, self.who(b, names)?),
            ActionData::Cast(a, b, s) => {
                Action::Cast(self.who(a, names)?, self.who(b, names)?, self.spell(s)?)
            }
            ActionData::SetStyle(a, s) => {
                let style = self.style(s)?;
                Action::SetStyle(self.who(a, names)?, style.tag(&self.combat.tags))
            }
            ActionData::Disengage(a) => Action::Disengage(self.who(a, names)?),
            ActionData::Autocast(a, s) => {
                let spell = match s {
                    Some(s) => Some(self.spell(s)?),
                    None => None,
                };
                Action::Autocast(self.who(a, names)?, spell)
            }
            ActionData::Eat(a, i) => Action::Eat(self.who(a, names)?, self.item(i)?),
            ActionData::Event(a, t) => Action::Event(self.who(a, names)?, self.tag(t)?),
            ActionData::Move(a, (x, y)) => {
                if !(x.is_finite() && y.is_finite()) {
                    self.report(
                        "Move",
                        format!("a move's destination must be finite, found ({x}, {y})"),
                    );
                    return None;
                }
                Action::Move(self.who(a, names)?, Vec2::new(*x, *y))
            }
            ActionData::OpenModal(a, t) => Action::OpenModal(self.who(a, names)?, self.modal(t)?),
            ActionData::CloseModal(a, t) => Action::CloseModal(self.who(a, names)?, self.modal(t)?),
            ActionData::Stun(a, secs) => {
                if let Some(why) = stun_problem(*secs) {
                    self.report("Stun", why);
                    return None;
                }
                Action::Stun(self.who(a, names)?, *secs)
            }
            ActionData::Equip(a, i) => Action::Equip(self.who(a, names)?, self.item(i)?),
            ActionData::Save(a) => Action::Save(self.who(a, names)?),
            ActionData::Despawn(a) => Action::Despawn(self.who(a, names)?),
        })
    }
}
