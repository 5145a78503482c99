//! Compiled ability definitions.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::data::{AbilityData, BehaviourData, NetPolicy, Recipient};
use crate::diagnostics::{Diagnostic, LoadErrors, SourceFile};
use crate::effects::{DurationPolicy, EffectDefs, EffectId, Magnitude};
use crate::names::NameTable;
use crate::tags::{Tag, TagQuery, TagRegistry, TagSet};

/// Dense index of an ability definition in the catalog.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AbilityId(u16);

impl AbilityId {
    pub(crate) const fn new(index: usize) -> Self {
        Self(index as u16)
    }

    /// The dense index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Dense index of a registered behaviour name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BehaviourId(u16);

impl BehaviourId {
    pub(crate) const fn from_index(index: usize) -> Self {
        Self(index as u16)
    }

    /// The dense index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A compiled cooldown.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Cooldown {
    /// The cooldown effect.
    pub effect: EffectId,
    /// The SetByCaller key of its duration, when it takes one.
    pub duration_key: Option<Tag>,
    /// The authored duration, in seconds.
    pub seconds: Option<f64>,
}

/// One effect applied by `ApplyEffects`.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectApplication {
    /// The effect.
    pub effect: EffectId,
    /// Who receives it.
    pub to: Recipient,
    /// SetByCaller values.
    pub set_by_caller: SmallVec<[(Tag, f64); 2]>,
    /// SetByCaller key for the event's magnitude.
    pub event_magnitude: Option<Tag>,
}

/// What an ability does.
#[derive(Clone, Debug, PartialEq)]
pub enum Behaviour {
    /// Commit, apply, end.
    ApplyEffects(Vec<EffectApplication>),
    /// A behaviour registered with the context.
    Registered(BehaviourId),
}

/// One compiled ability.
#[derive(Clone, Debug, PartialEq)]
pub struct AbilityDef {
    /// Unique name.
    pub name: String,
    /// Activating event tag.
    pub trigger: Tag,
    /// The owner must match this for the event to trigger the ability.
    pub trigger_when: TagQuery,
    /// Tags cancel/block lists match.
    pub ability_tags: TagSet,
    /// Held by the owner while active.
    pub activation_owned_tags: TagSet,
    /// Required of the owner.
    pub activation_required: TagQuery,
    /// Forbidden to the owner (`None`: nothing blocks).
    pub activation_blocked: Option<TagQuery>,
    /// Required of the event's instigator.
    pub source_required: TagQuery,
    /// Required of the event's target, which must then exist.
    pub target_required: Option<TagQuery>,
    /// Cancelled on activation.
    pub cancel_abilities_with_tags: TagSet,
    /// Blocked while active.
    pub block_abilities_with_tags: TagSet,
    /// Cancels this ability when added to the owner.
    pub cancel_on_tags_added: TagSet,
    /// Cancels this ability when added to the event's target.
    pub cancel_on_target_tags_added: TagSet,
    /// Cost effect.
    pub cost: Option<EffectId>,
    /// Cooldown.
    pub cooldown: Option<Cooldown>,
    /// Net policy.
    pub net: NetPolicy,
    /// The range a client's event magnitude may take (`None`: clients send
    /// none).
    pub client_magnitude: Option<(f64, f64)>,
    /// Restart when triggered while active: the running instance ends,
    /// once the checks pass with it still running.
    pub retrigger: bool,
    /// What it does.
    pub behaviour: Behaviour,
}

impl AbilityDef {
    /// The first of `tags` (in `cancel_on_tags_added` order) that cancels
    /// this ability: a cancel tag or a descendant of one, other than a tag
    /// the ability itself owns while active, whose appearing never cancels
    /// it. Cancelling on `Action.Modal` while owning `Action.Modal.Banking`
    /// is cancelled by `Action.Modal.Trading`, not by its own tag.
    pub(crate) fn cancelling_tag<I: Iterator<Item = Tag>>(
        &self,
        tags: impl Fn() -> I,
    ) -> Option<Tag> {
        first_cancelling(
            &self.cancel_on_tags_added,
            tags,
            &self.activation_owned_tags,
        )
    }

    /// The first of `tags`, appearing on an instance's target, that
    /// cancels it (in `cancel_on_target_tags_added` order). On an
    /// instance aimed at its own owner the tags it owns while active
    /// appear on its target too, and spare it as they do on the owner's
    /// side ([`cancelling_tag`](Self::cancelling_tag)).
    pub(crate) fn target_cancelling_tag<I: Iterator<Item = Tag>>(
        &self,
        tags: impl Fn() -> I,
        aimed_at_owner: bool,
    ) -> Option<Tag> {
        static NONE: TagSet = TagSet::new();
        let spared = if aimed_at_owner {
            &self.activation_owned_tags
        } else {
            &NONE
        };
        first_cancelling(&self.cancel_on_target_tags_added, tags, spared)
    }
}

/// The first of `tags` that is one of `cancels` or below one (taking the
/// cancels in order) and not exactly one of `spared`.
fn first_cancelling<I: Iterator<Item = Tag>>(
    cancels: &TagSet,
    tags: impl Fn() -> I,
    spared: &TagSet,
) -> Option<Tag> {
    cancels
        .iter()
        .find_map(|cancel| tags().find(|&t| t.matches(cancel) && !spared.has_exact(t)))
}

/// Every ability definition, and the names of registered behaviours they use.
#[derive(Clone, Debug, Default)]
pub struct AbilityDefs {
    defs: Vec<AbilityDef>,
    names: NameTable,
    behaviours: NameTable,
    /// The abilities an event of each tag triggers (those whose trigger is
    /// that tag or an ancestor of it), all tags' lists end to end in tag
    /// order: tag `t`'s are
    /// `triggered[trigger_starts[t]..trigger_starts[t + 1]]`, in id order.
    triggered: Vec<AbilityId>,
    trigger_starts: Vec<u32>,
}

impl AbilityDefs {
    pub(crate) fn build(
        data: &[(&SourceFile, &AbilityData)],
        tags: &TagRegistry,
        effects: &EffectDefs,
        errors: &mut LoadErrors,
    ) -> AbilityDefs {
        let mut out = AbilityDefs {
            defs: Vec::with_capacity(data.len()),
            names: NameTable::new("ability"),
            behaviours: NameTable::new("behaviour"),
            triggered: Vec::new(),
            trigger_starts: Vec::new(),
        };
        let mut files: Vec<&SourceFile> = Vec::new();
        for &(file, ability) in data {
            let defined_in = |first: usize| files[first].name.as_str();
            if out
                .names
                .declare(&ability.name, file, defined_in, errors)
                .is_none()
            {
                continue;
            }
            files.push(file);
            let def = compile(file, ability, tags, effects, &mut out.behaviours, errors);
            out.defs.push(def);
        }
        // A trigger covers its subtree, a contiguous range of tag indices:
        // count each tag's abilities, then lay the lists out end to end.
        let mut counts = vec![0u32; tags.len()];
        for def in &out.defs {
            for count in &mut counts[def.trigger.index()..def.trigger.subtree_end()] {
                *count += 1;
            }
        }
        out.trigger_starts = std::iter::once(0)
            .chain(counts.iter().scan(0, |end, count| {
                *end += count;
                Some(*end)
            }))
            .collect();
        let mut filled = out.trigger_starts.clone();
        out.triggered = vec![AbilityId::new(0); filled[tags.len()] as usize];
        for (index, def) in out.defs.iter().enumerate() {
            for next in &mut filled[def.trigger.index()..def.trigger.subtree_end()] {
                out.triggered[*next as usize] = AbilityId::new(index);
                *next += 1;
            }
        }
        out
    }

    /// Does an event tagged `tag` trigger any ability of the catalog? O(1).
    #[inline]
    pub fn triggered_by(&self, tag: Tag) -> bool {
        !self.abilities_triggered_by(tag).is_empty()
    }

    /// The abilities of the catalog an event tagged `tag` triggers (those
    /// whose trigger is `tag` or an ancestor of it), in id order.
    #[inline]
    pub fn abilities_triggered_by(&self, tag: Tag) -> &[AbilityId] {
        match (
            self.trigger_starts.get(tag.index()),
            self.trigger_starts.get(tag.index() + 1),
        ) {
            (Some(&start), Some(&end)) => &self.triggered[start as usize..end as usize],
            _ => &[],
        }
    }

    /// Number of abilities.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// The definition of `id`.
    #[inline]
    pub fn def(&self, id: AbilityId) -> &AbilityDef {
        &self.defs[id.index()]
    }

    /// The definition of `id`, if it is in this catalog.
    pub fn try_def(&self, id: AbilityId) -> Option<&AbilityDef> {
        self.defs.get(id.index())
    }

    /// The ability called `name` (load time only).
    pub fn get(&self, name: &str) -> Option<AbilityId> {
        self.names.get(name).map(AbilityId::new)
    }

    /// Like [`get`](Self::get), with a located error and suggestion.
    pub fn resolve_in(&self, name: &str, file: &SourceFile) -> Result<AbilityId, Diagnostic> {
        self.names
            .resolve_in(name, &file.name, &file.text)
            .map(AbilityId::new)
    }

    /// Every ability id.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = AbilityId> {
        (0..self.defs.len()).map(AbilityId::new)
    }

    /// The id of a registered behaviour name some ability uses.
    pub fn behaviour(&self, name: &str) -> Option<BehaviourId> {
        self.behaviours.get(name).map(|i| BehaviourId(i as u16))
    }

    /// Number of distinct registered behaviour names the abilities use.
    pub fn behaviour_count(&self) -> usize {
        self.behaviours.iter().len()
    }

    /// The name of a registered behaviour.
    pub fn behaviour_name(&self, id: BehaviourId) -> &str {
        self.behaviours.iter().nth(id.index()).unwrap_or("?")
    }
}

fn compile(
    file: &SourceFile,
    data: &AbilityData,
    tags: &TagRegistry,
    effects: &EffectDefs,
    behaviours: &mut NameTable,
    errors: &mut LoadErrors,
) -> AbilityDef {
    let name = data.name.as_str();
    let located = |needle: &str, e: Diagnostic| -> Diagnostic {
        let mut e = e.at_text_after(&file.text, name, needle);
        e.message = format!("ability `{name}`: {}", e.message);
        e
    };
    let tag =
        |text: &str, errors: &mut LoadErrors| match tags.resolve_in(text, &file.name, &file.text) {
            Ok(tag) => Some(tag),
            Err(e) => {
                errors.push(located(text, e));
                None
            }
        };
    let tag_set = |texts: &[String], errors: &mut LoadErrors| -> TagSet {
        texts.iter().filter_map(|t| tag(t, errors)).collect()
    };
    let query = |q: &crate::tags::TagQueryDef, errors: &mut LoadErrors| {
        q.resolve(tags, &file.name, &file.text, errors)
    };
    let effect = |text: &str, errors: &mut LoadErrors| match effects.resolve_in(text, file) {
        Ok(id) => Some(id),
        Err(e) => {
            errors.push(located(text, e));
            None
        }
    };

    let trigger =
        tag(&data.trigger, errors).unwrap_or(tags[crate::tags::native::FAIL_INVALID_PAYLOAD]);
    // A commit is checked, then paid: one left to chance would be skipped
    // as often as it missed.
    let by_chance = |text: &str, what: &str, id, errors: &mut LoadErrors| {
        if effects.def(id).chance.is_some() {
            errors.push(file.error_after(name, text, format!("ability `{name}`: {what} effect `{text}` applies by chance, so the commit would skip it when the roll misses; drop its `chance`")));
        }
    };
    if let Some(cost) = &data.cost {
        if let Some(id) = effect(cost, errors) {
            by_chance(cost, "cost", id, errors);
        }
    }
    let cooldown = data.cooldown.as_ref().and_then(|c| {
        let id = effect(&c.effect, errors)?;
        let def = effects.def(id);
        by_chance(&c.effect, "cooldown", id, errors);
        let duration_key = match &def.duration {
            DurationPolicy::Duration(Magnitude::SetByCaller(key)) => Some(*key),
            _ => None,
        };
        if def.granted_tags.is_empty() {
            errors.push(file.error_after(name, &c.effect, format!("ability `{name}`: cooldown effect `{}` grants no tag, so it can never gate anything", c.effect)));
        }
        if matches!(def.duration, DurationPolicy::Infinite) {
            errors.push(file.error_after(name, &c.effect, format!("ability `{name}`: cooldown effect `{}` never ends, so the ability could be used once", c.effect)));
        }
        if let Some(seconds) = c.seconds {
            if !(seconds.is_finite() && seconds >= 0.0) {
                errors.push(file.error_after(name, "seconds", format!("ability `{name}`: cooldown seconds must be ≥ 0, found {seconds}")));
            } else if duration_key.is_none() {
                errors.push(file.error_after(name, "seconds", format!("ability `{name}`: cooldown effect `{}` does not take its duration from a SetByCaller value, so `seconds: {seconds}` would be ignored; give it `duration: Duration(SetByCaller(...))` or drop `seconds`", c.effect)));
            }
        }
        Some(Cooldown {
            effect: id,
            duration_key,
            seconds: c.seconds,
        })
    });
    let behaviour = match &data.behaviour {
        BehaviourData::Registered(behaviour) => {
            if let Err(problem) = crate::tags::validate_segment(behaviour) {
                errors.push(file.error_after(
                    name,
                    behaviour,
                    format!("ability `{name}`: invalid behaviour name `{behaviour}`: {problem}"),
                ));
            }
            let index = behaviours
                .insert(behaviour)
                .unwrap_or_else(|existing| existing);
            Behaviour::Registered(BehaviourId(index as u16))
        }
        BehaviourData::ApplyEffects(list) => Behaviour::ApplyEffects(
            list.iter()
                .filter_map(|application| {
                    let id = effect(&application.effect, errors)?;
                    let set_by_caller = application
                        .set_by_caller
                        .iter()
                        .filter_map(|(key, value)| {
                            if !value.is_finite() {
                                errors.push(file.error_after(
                                    name,
                                    key,
                                    format!("ability `{name}`: SetByCaller `{key}` must be finite"),
                                ));
                            }
                            Some((tag(key, errors)?, *value))
                        })
                        .collect();
                    Some(EffectApplication {
                        effect: id,
                        to: application.to,
                        set_by_caller,
                        event_magnitude: application
                            .event_magnitude
                            .as_deref()
                            .and_then(|k| tag(k, errors)),
                    })
                })
                .collect(),
        ),
    };
    check_set_by_caller(
        file,
        data,
        &behaviour,
        cost_of(data, effects),
        cooldown,
        tags,
        effects,
        errors,
    );
    let def = AbilityDef {
        name: data.name.clone(),
        trigger,
        trigger_when: query(&data.trigger_when, errors),
        ability_tags: tag_set(&data.ability_tags, errors),
        activation_owned_tags: tag_set(&data.activation_owned_tags, errors),
        activation_required: query(&data.activation_required, errors),
        activation_blocked: data.activation_blocked.as_ref().map(|q| query(q, errors)),
        source_required: query(&data.source_required, errors),
        target_required: data.target_required.as_ref().map(|q| query(q, errors)),
        cancel_abilities_with_tags: tag_set(&data.cancel_abilities_with_tags, errors),
        block_abilities_with_tags: tag_set(&data.block_abilities_with_tags, errors),
        cancel_on_tags_added: tag_set(&data.cancel_on_tags_added, errors),
        cancel_on_target_tags_added: tag_set(&data.cancel_on_target_tags_added, errors),
        cost: cost_of(data, effects),
        cooldown,
        net: data.net,
        client_magnitude: client_magnitude(file, data, errors),
        retrigger: data.retrigger,
        behaviour,
    };
    if def.retrigger {
        check_retrigger(file, &def, errors);
    }
    def
}

/// A retrigger the ability's own running instance always refuses is an
/// error: the activation checks read the owner with the instance still
/// running (as Unreal's `CanActivateAbility` comes before its retrigger),
/// so an ability that blocks its own tags, whose owned tags alone meet its
/// `activation_blocked`, or whose `activation_required` forbids one of
/// them, could never start again while it runs.
fn check_retrigger(file: &SourceFile, def: &AbilityDef, errors: &mut LoadErrors) {
    let name = &def.name;
    let why = if def.ability_tags.has_any(&def.block_abilities_with_tags) {
        "its `block_abilities_with_tags` block its own `ability_tags`"
    } else if def.activation_blocked.as_ref().is_some_and(|blocked| {
        !blocked.is_empty() && blocked.only_asks() && blocked.matches(&def.activation_owned_tags)
    }) {
        "its `activation_owned_tags` meet its own `activation_blocked`"
    } else if def
        .activation_required
        .forbids_any(&def.activation_owned_tags)
    {
        "its `activation_required` forbids one of its own `activation_owned_tags`"
    } else {
        return;
    };
    errors.push(file.error_after(
        name,
        "retrigger",
        format!(
            "ability `{name}`: `retrigger: true` can never happen: while it runs, {why}, and the checks run before the running instance ends; drop `retrigger` or the block"
        ),
    ));
}

/// The client magnitude bounds: finite, and in order.
fn client_magnitude(
    file: &SourceFile,
    data: &AbilityData,
    errors: &mut LoadErrors,
) -> Option<(f64, f64)> {
    let (min, max) = data.client_magnitude?;
    if !(min.is_finite() && max.is_finite() && min <= max) {
        errors.push(file.error_after(
            &data.name,
            "client_magnitude",
            format!(
                "ability `{}`: client_magnitude must be two finite numbers, the smaller first, found ({min}, {max})",
                data.name
            ),
        ));
        return None;
    }
    Some((min, max))
}

/// The cost effect, when it resolves (an unknown one is reported once, by
/// the compiler above).
fn cost_of(data: &AbilityData, effects: &EffectDefs) -> Option<EffectId> {
    data.cost.as_deref().and_then(|c| effects.get(c))
}

/// Validates before anyone commits: every SetByCaller value an ability's
/// effects read must have a giver the data can see. A cost gets none; a
/// cooldown gets only its duration (from `seconds`, or from a registered
/// behaviour at commit); an `ApplyEffects` entry gets its `set_by_caller`
/// list and the event's magnitude.
#[allow(clippy::too_many_arguments)]
fn check_set_by_caller(
    file: &SourceFile,
    data: &AbilityData,
    behaviour: &Behaviour,
    cost: Option<EffectId>,
    cooldown: Option<Cooldown>,
    tags: &TagRegistry,
    effects: &EffectDefs,
    errors: &mut LoadErrors,
) {
    let name = data.name.as_str();
    // `applied` starts the chain; `reader`, it or an effect it causes,
    // reads the key.
    let mut report = |anchor: &str, applied: EffectId, reader: EffectId, key: Tag, giver: &str| {
        let by = if reader == applied {
            String::new()
        } else {
            format!(
                " (caused by `{}`, with its values)",
                effects.def(applied).name
            )
        };
        errors.push(file.error_after(
            name,
            anchor,
            format!(
                "ability `{name}`: effect `{}`{by} needs a SetByCaller value under `{}`, and {giver}",
                effects.def(reader).name,
                tags.name(key)
            ),
        ));
    };
    if let (Some(cost), Some(anchor)) = (cost, data.cost.as_deref()) {
        for (reader, key) in effects.chain_set_by_caller_keys(cost) {
            report(anchor, cost, reader, key, "a cost is applied without any");
        }
    }
    if let (Some(cooldown), Some(data_cooldown)) = (cooldown, &data.cooldown) {
        let registered = matches!(behaviour, Behaviour::Registered(_));
        for (reader, key) in effects.chain_set_by_caller_keys(cooldown.effect) {
            let is_duration = Some(key) == cooldown.duration_key;
            if is_duration && (cooldown.seconds.is_some() || registered) {
                continue;
            }
            let giver = if is_duration {
                "the cooldown has no `seconds` to give it"
            } else {
                "a cooldown is given only its duration"
            };
            report(&data_cooldown.effect, cooldown.effect, reader, key, giver);
        }
    }
    let Behaviour::ApplyEffects(list) = behaviour else {
        return;
    };
    for application in list {
        let written = effects.def(application.effect).name.as_str();
        for (reader, key) in effects.chain_set_by_caller_keys(application.effect) {
            let given = application
                .set_by_caller
                .iter()
                .map(|(k, _)| *k)
                .chain(application.event_magnitude)
                .any(|k| k.matches(key));
            if !given {
                report(
                    written,
                    application.effect,
                    reader,
                    key,
                    "neither `set_by_caller` nor `event_magnitude` gives it",
                );
            }
        }
    }
}
