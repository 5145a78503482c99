//! [`TimerQueue`]: everything scheduled, popped in `(time, lane, sequence)`
//! order.
//!
//! The queue is a calendar wheel: time is cut into buckets of 1.024 ms, and a
//! ring of 65 536 buckets covers the next 67 s. Each bucket is a list of
//! blocks of up to five entries, threaded through one block pool, so
//! scheduling is O(1) and allocates nothing once the pool has grown to the
//! peak number of timers. When the cursor reaches a bucket, its list moves
//! into one reused scratch vector and is sorted once (timers pushed in
//! order, the common case, are checked and left as they are). A bitmap finds the next occupied bucket a word at
//! a time. Timers beyond the ring's horizon wait in a small binary heap and
//! move into the ring as the cursor approaches. The pop order is exactly
//! `(time, lane, sequence)`, so it never depends on the bucket layout.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use slotmap::{new_key_type, Key};

use crate::slots::Slots;

use super::SimTime;

new_key_type! {
    /// A scheduled timer. Generation-checked: a key of a fired or cancelled
    /// timer never matches a later one.
    pub struct TimerKey;
}

/// Which of two timers due at the same instant fires first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lane {
    /// Ends of state (an effect's duration running out). At any instant,
    /// everything that ends then has ended before anything else happens:
    /// an ability pressed at the exact instant its cooldown ends is ready.
    Expiry,
    /// Everything else, in scheduling order.
    Normal,
}

/// Microseconds per bucket, as a shift: 2^10 µs = 1.024 ms.
const BUCKET_SHIFT: u32 = 10;
/// Buckets in the ring, as a shift: 2^16 buckets ≈ 67 s.
const RING_SHIFT: u32 = 16;
const RING: u64 = 1 << RING_SHIFT;
const RING_MASK: u64 = RING - 1;
/// End of a bucket list.
const NIL: u32 = u32::MAX;
/// Below this many far entries, cancelled ones are left to surface.
const FAR_SWEEP_FLOOR: usize = 1024;
/// How many blocks of a bucket drained in place are read into `draining`
/// at a time: callers name timers up to eight ahead of the next one (the
/// context's prefetch stage), which are read most cheaply there.
const IN_PLACE_READ: usize = 4;
/// How many of the blocks after those read a bucket drained in place keeps
/// asked for.
const IN_PLACE_AHEAD: usize = 2;
/// From this many entries on, an unsorted bucket is first spread by instant
/// and lane in one counting pass (see [`Crowd`]).
const CROWDED_BUCKET: usize = 128;

/// One scheduled timer: its order key and its slot.
///
/// The lane and the sequence number share one word (the lane in the top
/// bit, which sequence numbers never reach), so an entry is 24 bytes and
/// five fit a 128-byte pool block: a queue holds a few of them per live
/// effect and waiting instance. Saved as the four fields it packs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "SavedEntry", try_from = "SavedEntry")]
struct Entry {
    at: SimTime,
    /// The lane in bit 63 (set for [`Lane::Normal`]), the sequence number
    /// below it.
    lane_seq: u64,
    key: TimerKey,
}

/// Bit 63 of [`Entry::lane_seq`]: set for [`Lane::Normal`].
const NORMAL_LANE_BIT: u64 = 1 << 63;

impl Entry {
    /// Sequence numbers stay below 2^63 (one timer per nanosecond would
    /// take three centuries), which leaves the top bit to the lane.
    fn new(at: SimTime, lane: Lane, seq: u64, key: TimerKey) -> Self {
        debug_assert!(seq < NORMAL_LANE_BIT, "timer sequence number out of range");
        let lane_bit = match lane {
            Lane::Expiry => 0,
            Lane::Normal => NORMAL_LANE_BIT,
        };
        Self {
            at,
            lane_seq: lane_bit | seq,
            key,
        }
    }

    fn lane(&self) -> Lane {
        if self.lane_seq & NORMAL_LANE_BIT == 0 {
            Lane::Expiry
        } else {
            Lane::Normal
        }
    }

    fn seq(&self) -> u64 {
        self.lane_seq & !NORMAL_LANE_BIT
    }

    fn bucket(&self) -> u64 {
        self.at.as_micros() >> BUCKET_SHIFT
    }

    /// `(time, lane, sequence)` packed into one integer, so sorting a
    /// bucket compares one number.
    fn order(&self) -> u128 {
        (u128::from(self.at.as_micros()) << 64) | u128::from(self.lane_seq)
    }
}

/// An [`Entry`] as saved: its fields unpacked.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Entry")]
struct SavedEntry {
    at: SimTime,
    lane: Lane,
    seq: u64,
    key: TimerKey,
}

impl From<Entry> for SavedEntry {
    fn from(entry: Entry) -> Self {
        Self {
            at: entry.at,
            lane: entry.lane(),
            seq: entry.seq(),
            key: entry.key,
        }
    }
}

impl TryFrom<SavedEntry> for Entry {
    type Error = &'static str;

    fn try_from(saved: SavedEntry) -> Result<Self, Self::Error> {
        if saved.seq >= NORMAL_LANE_BIT {
            return Err("timer sequence number out of range");
        }
        Ok(Entry::new(saved.at, saved.lane, saved.seq, saved.key))
    }
}

/// Entries are unique by `(time, lane, sequence)`, so this order agrees
/// with equality.
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.order().cmp(&other.order())
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Entries a pool block holds.
const BLOCK: usize = 5;

/// A pool block: a run of one bucket's entries, oldest first, and the
/// block of the same bucket filled before it (or the next free block).
///
/// Opening a bucket follows one link per block, not one per entry. At
/// scale each link is a cache miss that cannot start before the one
/// before it has ended, so five entries a block shorten that chain
/// five-fold. 128 bytes, aligned to the pair of cache lines the hardware
/// fetches together; an entry added to a block that has room touches the
/// block's first line, or its second, and nothing else.
#[derive(Copy, Clone, Debug)]
#[repr(C, align(128))]
struct Block {
    len: u32,
    next: u32,
    entries: [Entry; BLOCK],
}

/// Timers ordered by `(time, lane, sequence)`: at equal times expiries come
/// first, then everything else in the order it was scheduled, so the order
/// of events never depends on anything but the order of inputs.
///
/// Scheduling is O(1) (O(log n) past the 67 s horizon); popping is O(1)
/// amortised plus one sort per occupied bucket whose timers did not come
/// in order (one whose timers did is read where it lies). Cancelling is
/// O(1) amortised: the payload leaves a slot map, and the entry is skipped by a
/// generation check when it surfaces (past the horizon, swept out once
/// cancelled entries are the majority). Nothing is ever searched for.
///
/// Serialized as the pending timers alone (their keys, order and payloads),
/// so a saved queue is small and restores to the same pop order with the
/// same keys.
#[derive(Clone, Debug)]
pub struct TimerQueue<P> {
    /// Newest block of each ring slot's list (`NIL` when empty); slot
    /// `b & MASK` holds entries of absolute bucket `b` within
    /// `cursor..cursor + RING`.
    heads: Vec<u32>,
    /// Bit `i` set when ring slot `i` holds entries.
    occupied: Vec<u64>,
    /// The block pool and its free list.
    blocks: Vec<Block>,
    free: u32,
    /// For each block, the block two places further along its list (`NIL`
    /// when there is none, meaningless for a free block): opening a bucket
    /// follows one link per block, each a miss at scale that cannot start
    /// before the one before it ends, and these links, dense and so mostly
    /// cached, name the blocks four places ahead to ask for. Set when a
    /// block is put at the front of a list, from the block it goes in
    /// front of, which was just being filled.
    skips: Vec<u32>,
    /// Bit `i` set when ring slot `i`'s list was not added to in pop
    /// order (an entry came before the one added ahead of it), so it must
    /// be copied and sorted when opened rather than drained in place.
    unordered: Vec<u64>,
    /// Entries in the ring's lists (not counting the open bucket's, nor
    /// `late`).
    in_ring: usize,
    /// Absolute index of the first bucket not yet drained.
    cursor: u64,
    /// The cursor's bucket while it is being drained, largest first (the
    /// earliest last): all of it, sorted, when its list was not in pop
    /// order; else its next few blocks' entries.
    draining: Vec<Entry>,
    /// The blocks not yet read of a cursor's bucket drained where it
    /// lies.
    in_place: InPlace,
    /// Timers scheduled into the cursor's bucket while it is being drained
    /// (a handler scheduling "now"): a heap, so a large synchronized bucket
    /// is never shifted to make room.
    late: BinaryHeap<Reverse<Entry>>,
    /// Timers beyond the ring's horizon.
    far: BinaryHeap<Reverse<Entry>>,
    live: Slots<TimerKey, P>,
    next_seq: u64,
    /// Scratch space for ordering crowded buckets.
    crowd: Crowd,
    /// Whether scheduling asks the memory system for what the next
    /// schedule will read (see [`set_prefetching`](Self::set_prefetching)).
    prefetching: bool,
}

/// Orders a crowded bucket without comparing entries.
///
/// When many fighters act in step, one bucket holds hundreds of timers at a
/// few instants, expiries and wake-ups interleaved, and a comparison sort
/// spends most of a step on it. Within a bucket an entry's place is decided
/// by its microsecond offset and lane, then by its sequence number; a list
/// is newest first, which is descending sequence for timers scheduled in
/// order. So one stable counting pass over (offset, lane), largest first,
/// puts such a bucket in its exact order. Anything the pass cannot order
/// (an entry from before the bucket, a timer moved in from the far heap
/// behind newer ones) is left to the comparison sort that checks after it.
#[derive(Clone, Debug, Default)]
struct Crowd {
    /// Per (offset, lane) key: its count, then where its entries go.
    slots: Vec<u32>,
    /// The bucket's entries while they are spread.
    entries: Vec<Entry>,
}

impl Crowd {
    /// Keys: every microsecond of a bucket, in both lanes.
    const KEYS: usize = 2 << BUCKET_SHIFT;

    fn key(entry: &Entry) -> usize {
        let offset = (entry.at.as_micros() & ((1 << BUCKET_SHIFT) - 1)) as usize;
        (offset << 1) | usize::from(entry.lane() == Lane::Normal)
    }

    /// Reorders `bucket` by (offset, lane), largest first, keeping the
    /// order of entries with equal keys.
    fn spread(&mut self, bucket: &mut [Entry]) {
        self.slots.clear();
        self.slots.resize(Self::KEYS, 0);
        for entry in bucket.iter() {
            self.slots[Self::key(entry)] += 1;
        }
        let mut start = 0;
        for slot in self.slots.iter_mut().rev() {
            let count = *slot;
            *slot = start;
            start += count;
        }
        self.entries.clear();
        self.entries.extend_from_slice(bucket);
        for entry in &self.entries {
            let slot = &mut self.slots[Self::key(entry)];
            bucket[*slot as usize] = *entry;
            *slot += 1;
        }
    }
}

/// The blocks of an open bucket drained where its list lies.
///
/// Most lists are added to in pop order: timers scheduled in order, and a
/// crowd acting in step, whose wake-ups fall in one bucket every swing
/// (a third of the arena's fighters at once). Such a list needs no sort,
/// so it is read where it lies, oldest block first: a few blocks at a
/// time go into `draining` as it runs dry, and back to the pool. A bucket
/// of a hundred thousand timers is then never copied whole, and the queue
/// never holds a second copy of its largest instant. A list that is not
/// in order is copied whole and sorted.
#[derive(Clone, Debug, Default)]
struct InPlace {
    /// The list's blocks not yet read, newest first: the next is the
    /// last. Every block but the first (the list's head) is full.
    blocks: Vec<u32>,
    /// Entries in them.
    len: usize,
}

impl<P> Default for TimerQueue<P> {
    fn default() -> Self {
        Self {
            heads: Vec::new(),
            occupied: vec![0; (RING / 64) as usize],
            unordered: vec![0; (RING / 64) as usize],
            blocks: Vec::new(),
            free: NIL,
            skips: Vec::new(),
            in_ring: 0,
            cursor: 0,
            draining: Vec::new(),
            in_place: InPlace::default(),
            late: BinaryHeap::new(),
            far: BinaryHeap::new(),
            live: Slots::new(),
            next_seq: 0,
            crowd: Crowd::default(),
            prefetching: false,
        }
    }
}

impl<P> TimerQueue<P> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `payload` at `at` in the normal lane; returns a key to
    /// cancel it with.
    pub fn schedule(&mut self, at: SimTime, payload: P) -> TimerKey {
        self.schedule_in(at, Lane::Normal, payload)
    }

    /// Schedules `payload` at `at` in `lane`.
    pub fn schedule_in(&mut self, at: SimTime, lane: Lane, payload: P) -> TimerKey {
        let key = self.live.insert(payload);
        if self.prefetching {
            // The slot this insert took was the free list's head; the next
            // insert reads the one after it, freed longer ago and, in a
            // large queue, long out of the cache.
            self.live.prefetch_next_insert();
        }
        let entry = Entry::new(at, lane, self.next_seq, key);
        self.next_seq += 1;
        self.place(entry);
        key
    }

    /// Puts an entry where it belongs: the bucket being drained, a ring
    /// list, or the far heap.
    fn place(&mut self, entry: Entry) {
        // A timer in the past of the cursor belongs to the cursor's bucket.
        let bucket = entry.bucket().max(self.cursor);
        if bucket == self.cursor && self.is_draining() {
            self.late.push(Reverse(entry));
            return;
        }
        if bucket >= self.cursor + RING {
            self.far.push(Reverse(entry));
            return;
        }
        if self.heads.is_empty() {
            self.heads = vec![NIL; RING as usize];
        }
        let slot = (bucket & RING_MASK) as usize;
        let head = self.heads[slot];
        // The entry added before this one is the head block's last: a list
        // stays in pop order while each entry comes after it.
        let after_last = match self.blocks.get_mut(head as usize) {
            Some(block) if (block.len as usize) < BLOCK => {
                let after_last = block.entries[block.len as usize - 1] < entry;
                block.entries[block.len as usize] = entry;
                block.len += 1;
                after_last
            }
            full_or_none => {
                let after_last = full_or_none.is_none_or(|block| block.entries[BLOCK - 1] < entry);
                self.heads[slot] = self.new_block(entry, head);
                after_last
            }
        };
        if !after_last {
            self.unordered[slot / 64] |= 1 << (slot % 64);
        }
        self.occupied[slot / 64] |= 1 << (slot % 64);
        self.in_ring += 1;
    }

    /// A block holding `entry` alone, in front of block `next`: a free one
    /// (only the fields that matter are written), or a new one.
    fn new_block(&mut self, entry: Entry, next: u32) -> u32 {
        let skip = self
            .blocks
            .get(next as usize)
            .map_or(NIL, |block| block.next);
        if self.free == NIL {
            self.blocks.push(Block {
                len: 1,
                next,
                entries: [entry; BLOCK],
            });
            self.skips.push(skip);
            return (self.blocks.len() - 1) as u32;
        }
        let index = self.free;
        let block = &mut self.blocks[index as usize];
        self.free = block.next;
        block.len = 1;
        block.next = next;
        block.entries[0] = entry;
        self.skips[index as usize] = skip;
        index
    }

    /// Asks for block `index` (a hint; nothing when it is `NIL`).
    #[inline]
    fn prefetch_block(&self, index: u32) {
        if let Some(block) = self.blocks.get(index as usize) {
            crate::prefetch::value(block);
        }
    }

    /// The block two places along the list from block `index`.
    #[inline]
    fn skip(&self, index: u32) -> u32 {
        self.skips.get(index as usize).copied().unwrap_or(NIL)
    }

    /// The newest block of every ring slot that holds entries, in slot
    /// order: a walk of the occupancy bits, not of all 65 536 slots.
    fn occupied_heads(&self) -> impl Iterator<Item = u32> + '_ {
        self.occupied
            .iter()
            .enumerate()
            .flat_map(move |(word_index, &word)| {
                let bits = std::iter::successors(Some(word).filter(|&w| w != 0), |&w| {
                    Some(w & (w - 1)).filter(|&rest| rest != 0)
                });
                bits.map(move |w| self.heads[word_index * 64 + w.trailing_zeros() as usize])
            })
    }

    /// The entries of the bucket list whose newest block is `head`, newest
    /// first.
    fn list(&self, head: u32) -> impl Iterator<Item = &Entry> + '_ {
        let next = |&index: &u32| Some(self.blocks[index as usize].next).filter(|&n| n != NIL);
        std::iter::successors(Some(head).filter(|&h| h != NIL), next).flat_map(|index| {
            let block = &self.blocks[index as usize];
            block.entries[..block.len as usize].iter().rev()
        })
    }

    /// Cancels a pending timer; returns its payload, or `None` if it already
    /// fired or was cancelled. O(1) amortised: a cancelled timer's entry is
    /// skipped when it surfaces, except beyond the ring's horizon, where
    /// entries are swept out as soon as the dead ones are the majority, so
    /// cancelling far timers never hoards memory until their due time.
    pub fn cancel(&mut self, key: TimerKey) -> Option<P> {
        let payload = self.live.remove(key)?;
        if self.far.len() > FAR_SWEEP_FLOOR && self.far.len() > 2 * self.live.len() {
            self.sweep_far();
        }
        Some(payload)
    }

    /// Drops the far heap's cancelled entries (at least half of it).
    fn sweep_far(&mut self) {
        let live = &self.live;
        self.far.retain(|Reverse(e)| live.contains_key(e.key));
    }

    /// Moves every pending timer due at or before `now` to `to` (later),
    /// keeping its key, lane and sequence: the context's way out of an
    /// instant that schedules without end. Returns how many moved: none
    /// when `to` is not later than `now` (at the end of time there is no
    /// later), since a timer moved there would be due again at once.
    pub fn defer_due(&mut self, now: SimTime, to: SimTime) -> usize {
        if to <= now {
            return 0;
        }
        let mut count = 0;
        while let Some(mut entry) = self.next_entry::<false>(now) {
            // Cancelled entries are dropped on the way.
            if self.live.contains_key(entry.key) {
                entry.at = to;
                self.place(entry);
                count += 1;
            }
        }
        count
    }

    /// When the pending timer `key` is due; `None` when it is not pending.
    /// Looks through every stored entry: for inspection, not hot paths.
    pub fn due(&self, key: TimerKey) -> Option<SimTime> {
        if !self.live.contains_key(key) {
            return None;
        }
        let in_ring = self.occupied_heads().flat_map(|head| self.list(head));
        self.open_entries()
            .chain(self.late.iter().map(|Reverse(e)| e))
            .chain(in_ring)
            .chain(self.far.iter().map(|Reverse(e)| e))
            .find(|e| e.key == key)
            .map(|e| e.at)
    }

    /// True while `key` is pending.
    pub fn is_pending(&self, key: TimerKey) -> bool {
        self.live.contains_key(key)
    }

    /// Moves far timers whose bucket has come within the ring's horizon.
    fn pull_far(&mut self) {
        while let Some(Reverse(entry)) = self.far.peek() {
            if entry.bucket() >= self.cursor + RING {
                break;
            }
            let Reverse(entry) = self.far.pop().expect("peeked");
            self.place(entry);
        }
    }

    /// The absolute index of the first occupied bucket at or after the
    /// cursor, within the ring.
    fn next_occupied(&self) -> Option<u64> {
        if self.in_ring == 0 {
            return None;
        }
        let start = (self.cursor & RING_MASK) as usize;
        let words = self.occupied.len();
        for step in 0..=words {
            let word_index = (start / 64 + step) % words;
            let mut word = self.occupied[word_index];
            if step == 0 {
                word &= u64::MAX << (start % 64);
            } else if step == words {
                // Back at the start word: only the bits before the cursor.
                word &= !(u64::MAX << (start % 64));
            }
            if word != 0 {
                let slot = (word_index * 64 + word.trailing_zeros() as usize) as u64;
                let offset = (slot + RING - (self.cursor & RING_MASK)) & RING_MASK;
                return Some(self.cursor + offset);
            }
        }
        None
    }

    /// Opens the cursor's bucket: drained in place when its list is in
    /// pop order, else moved into `draining`, sorted largest first, its
    /// blocks returned to the pool.
    #[inline]
    fn open_cursor_bucket(&mut self) {
        let slot = (self.cursor & RING_MASK) as usize;
        let mut index = std::mem::replace(&mut self.heads[slot], NIL);
        let bit = 1 << (slot % 64);
        self.occupied[slot / 64] &= !bit;
        let in_order = self.unordered[slot / 64] & bit == 0;
        self.unordered[slot / 64] &= !bit;
        if self.prefetching && index != NIL {
            // The blocks two and four places after the head, known at
            // once; then, from the head's own link (its line is read next
            // anyway), the blocks one and three places after it. Each block
            // the walk reaches asks for the one four places after it.
            let two_on = self.skip(index);
            self.prefetch_block(two_on);
            self.prefetch_block(self.skip(two_on));
            let one_on = self.blocks[index as usize].next;
            self.prefetch_block(one_on);
            self.prefetch_block(self.skip(one_on));
        }
        if in_order {
            self.open_in_place(index);
            return;
        }
        // Out of order somewhere (the list says so exactly): copied, then
        // ordered.
        while index != NIL {
            if self.prefetching {
                self.prefetch_block(self.skip(self.skip(index)));
            }
            let (moved, next) = self.drain_block(index);
            self.in_ring -= moved;
            index = next;
        }
        if self.draining.len() >= CROWDED_BUCKET {
            self.crowd.spread(&mut self.draining);
            if self.draining.is_sorted_by(|a, b| a >= b) {
                return;
            }
        }
        self.draining.sort_unstable_by_key(|e| Reverse(e.order()));
    }

    /// Moves block `index`'s entries onto the end of `draining`, latest
    /// first, and gives the block back to the pool; returns how many it
    /// held and the block after it in its list.
    #[inline]
    fn drain_block(&mut self, index: u32) -> (usize, u32) {
        let block = &mut self.blocks[index as usize];
        let entries = &block.entries[..block.len as usize];
        self.draining.extend(entries.iter().rev());
        let moved = entries.len();
        let next = std::mem::replace(&mut block.next, self.free);
        self.free = index;
        (moved, next)
    }

    /// Opens the list whose newest block is `head`, in pop order, to be
    /// drained where it lies (see [`InPlace`]).
    fn open_in_place(&mut self, head: u32) {
        debug_assert!(self.in_place.len == 0 && self.draining.is_empty());
        self.in_place.blocks.clear();
        let mut index = head;
        while index != NIL {
            if self.prefetching {
                self.prefetch_block(self.skip(self.skip(index)));
            }
            let block = &self.blocks[index as usize];
            debug_assert!(
                index == head || block.len as usize == BLOCK,
                "only a list's head block has room"
            );
            self.in_place.blocks.push(index);
            self.in_place.len += block.len as usize;
            index = block.next;
        }
        self.in_ring -= self.in_place.len;
        self.read_in_place();
    }

    /// Reads the next [`IN_PLACE_READ`] blocks of a bucket drained in
    /// place (or all it has left) into `draining`, which is empty, and
    /// gives them back to the pool.
    fn read_in_place(&mut self) {
        debug_assert!(self.draining.is_empty());
        let read = self.in_place.blocks.len().saturating_sub(IN_PLACE_READ);
        // Newest first, each block's entries latest first: the next pop,
        // the oldest block's first entry, is the last.
        for at in read..self.in_place.blocks.len() {
            let (moved, _) = self.drain_block(self.in_place.blocks[at]);
            self.in_place.len -= moved;
        }
        self.in_place.blocks.truncate(read);
        // The walk that opened the list ended at its oldest blocks; those
        // after them are asked for as the ones before are read.
        if self.prefetching {
            let blocks = &self.in_place.blocks;
            for &ahead in &blocks[read.saturating_sub(IN_PLACE_AHEAD)..] {
                self.prefetch_block(ahead);
            }
        }
    }

    /// The open bucket's entry `ahead` places after the first in its
    /// blocks drained in place; `None` past their end.
    #[inline]
    fn in_place_entry(&self, ahead: usize) -> Option<&Entry> {
        let open = &self.in_place;
        if ahead >= open.len {
            return None;
        }
        // Every block but the first is full, and the first holds the
        // list's last entries: counting whole blocks back from the last
        // lands in the right one.
        let block = open.blocks[open.blocks.len() - 1 - ahead / BLOCK];
        Some(&self.blocks[block as usize].entries[ahead % BLOCK])
    }

    /// Every entry the open bucket still holds (not `late`), in no
    /// particular order.
    fn open_entries(&self) -> impl Iterator<Item = &Entry> + '_ {
        let in_place = (0..self.in_place.len).filter_map(|k| self.in_place_entry(k));
        self.draining.iter().chain(in_place)
    }

    /// True while the cursor's bucket is open and not yet empty (its
    /// blocks drained in place are read into `draining` before it runs
    /// dry).
    fn is_draining(&self) -> bool {
        !self.draining.is_empty() || !self.late.is_empty()
    }

    /// Takes the earliest entry of the open bucket if it is due by `until`
    /// (with `ENDS`, due before `until` or at it in [`Lane::Expiry`]).
    fn take_draining<const ENDS: bool>(&mut self, until: SimTime) -> Option<Entry> {
        let sorted = self.draining.last().copied();
        let late = self.late.peek().map(|Reverse(e)| *e);
        let (entry, from_late) = match (sorted, late) {
            (Some(s), Some(l)) if l < s => (l, true),
            (Some(s), _) => (s, false),
            (None, Some(l)) => (l, true),
            (None, None) => return None,
        };
        let beyond = if ENDS {
            (entry.at, entry.lane_seq) > (until, NORMAL_LANE_BIT - 1)
        } else {
            entry.at > until
        };
        if beyond {
            return None;
        }
        if from_late {
            self.late.pop();
        } else {
            self.draining.pop();
            if self.draining.is_empty() && !self.in_place.blocks.is_empty() {
                self.read_in_place();
            }
        }
        if !self.is_draining() {
            self.cursor += 1;
        }
        Some(entry)
    }

    /// Pops the earliest pending timer due at or before `until`.
    #[inline]
    pub fn pop_due(&mut self, until: SimTime) -> Option<(SimTime, P)> {
        while let Some(entry) = self.next_entry::<false>(until) {
            if let Some(payload) = self.live.remove(entry.key) {
                return Some((entry.at, payload));
            }
        }
        None
    }

    /// [`pop_due`](Self::pop_due), with the popped timer's key, for a
    /// caller that may schedule it again: a timer whose payload `keep`
    /// accepts stays pending under its key (a copy of the payload comes
    /// back), though nothing in the wheel will fire it again. The caller
    /// then either [re-arms](Self::rearm) it or [cancels](Self::cancel) it,
    /// and whoever holds its key needs no telling in the first case.
    #[inline]
    pub(crate) fn pop_due_keeping(
        &mut self,
        until: SimTime,
        keep: impl Fn(&P) -> bool,
    ) -> Option<(SimTime, TimerKey, P)>
    where
        P: Copy,
    {
        self.pop_keeping::<false>(until, keep)
    }

    /// [`pop_due_keeping`](Self::pop_due_keeping) of the timers due before
    /// `until` and of the ends ([`Lane::Expiry`]) due at it, leaving the
    /// rest of that instant.
    #[inline]
    pub(crate) fn pop_ends_keeping(
        &mut self,
        until: SimTime,
        keep: impl Fn(&P) -> bool,
    ) -> Option<(SimTime, TimerKey, P)>
    where
        P: Copy,
    {
        self.pop_keeping::<true>(until, keep)
    }

    #[inline]
    fn pop_keeping<const ENDS: bool>(
        &mut self,
        until: SimTime,
        keep: impl Fn(&P) -> bool,
    ) -> Option<(SimTime, TimerKey, P)>
    where
        P: Copy,
    {
        while let Some(entry) = self.next_entry::<ENDS>(until) {
            match self.live.get(entry.key) {
                Some(&payload) if keep(&payload) => return Some((entry.at, entry.key, payload)),
                Some(_) => {
                    if let Some(payload) = self.live.remove(entry.key) {
                        return Some((entry.at, entry.key, payload));
                    }
                }
                None => {}
            }
        }
        None
    }

    /// Schedules again, at `at` in `lane` and under the same key, a timer
    /// that [`pop_due_keeping`](Self::pop_due_keeping) kept pending: the
    /// same order as a new timer scheduled now (it takes the next sequence
    /// number), without a new key. `false`, nothing done, when `key` is no
    /// longer pending (cancelled since). Only for a kept timer: one still
    /// in the wheel would fire twice.
    pub(crate) fn rearm(&mut self, key: TimerKey, at: SimTime, lane: Lane) -> bool {
        if !self.live.contains_key(key) {
            return false;
        }
        let entry = Entry::new(at, lane, self.next_seq, key);
        self.next_seq += 1;
        self.place(entry);
        true
    }

    /// Takes the earliest entry due at or before `until` out of the wheel,
    /// live or cancelled (the caller tells them apart); with `ENDS`, one
    /// due at `until` only in [`Lane::Expiry`].
    #[inline]
    fn next_entry<const ENDS: bool>(&mut self, until: SimTime) -> Option<Entry> {
        loop {
            if self.is_draining() {
                return self.take_draining::<ENDS>(until);
            }
            self.pull_far();
            // Nothing is pending before `until`'s bucket unless found below,
            // so the cursor may move up to it: later scans start there.
            let until_bucket = until.as_micros() >> BUCKET_SHIFT;
            match self.next_occupied() {
                Some(bucket) if bucket == self.cursor || bucket <= until_bucket => {
                    self.cursor = bucket;
                    self.open_cursor_bucket();
                }
                Some(_) => {
                    self.cursor = self.cursor.max(until_bucket);
                    return None;
                }
                None => match self.far.peek() {
                    // The ring is empty: jump the cursor to the far timers.
                    Some(Reverse(entry)) if entry.at <= until => self.cursor = entry.bucket(),
                    _ => {
                        self.cursor = self.cursor.max(until_bucket);
                        return None;
                    }
                },
            }
        }
    }

    /// All pending timers in pop order.
    fn pending(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> = self.open_entries().copied().collect();
        entries.extend(self.late.iter().map(|Reverse(e)| *e));
        for head in self.occupied_heads() {
            entries.extend(self.list(head));
        }
        entries.extend(self.far.iter().map(|Reverse(e)| *e));
        entries.retain(|e| self.live.contains_key(e.key));
        entries.sort_unstable();
        entries
    }

    /// The time of the earliest pending timer. Walks occupied buckets from
    /// the cursor until one holds a live entry; not meant for hot paths.
    pub fn next_due(&self) -> Option<SimTime> {
        let live = |e: &Entry| self.live.contains_key(e.key);
        let open = self
            .open_entries()
            .chain(self.late.iter().map(|Reverse(e)| e));
        if let Some(entry) = open.filter(|e| live(e)).min() {
            return Some(entry.at);
        }
        let in_ring = (0..RING)
            .map(|offset| self.cursor + offset)
            .filter(|bucket| {
                let slot = (bucket & RING_MASK) as usize;
                self.occupied[slot / 64] & (1 << (slot % 64)) != 0
            })
            .find_map(|bucket| {
                let head = self.heads[(bucket & RING_MASK) as usize];
                self.list(head).copied().filter(live).min()
            });
        let in_far = self.far.iter().map(|Reverse(e)| *e).filter(live).min();
        in_ring.into_iter().chain(in_far).min().map(|e| e.at)
    }

    /// The payload of the timer `ahead` pops after the next one, when the
    /// open bucket holds it and it is pending: what a caller may prefetch
    /// for. A hint only: a timer scheduled into the open bucket meanwhile
    /// may come before it.
    #[inline]
    pub(crate) fn upcoming(&self, ahead: usize) -> Option<&P> {
        self.live.get(self.upcoming_key(ahead)?)
    }

    /// Asks the memory system for the payload [`upcoming`](Self::upcoming)
    /// would read.
    #[inline]
    pub(crate) fn prefetch_upcoming(&self, ahead: usize) {
        if let Some(key) = self.upcoming_key(ahead) {
            self.live.prefetch(key);
        }
    }

    /// The key of the open bucket's entry `ahead` pops after the next one
    /// (`draining` is sorted largest first, the next pop its last, and any
    /// blocks drained in place follow it).
    #[inline]
    fn upcoming_key(&self, ahead: usize) -> Option<TimerKey> {
        match self.draining.len().checked_sub(ahead + 1) {
            Some(index) => Some(self.draining[index].key),
            None => Some(self.in_place_entry(ahead - self.draining.len())?.key),
        }
    }

    /// Whether each schedule asks the memory system for the payload slot
    /// the next one will take: worth it only for a queue too large for the
    /// cache (the context turns it on with its own prefetching).
    pub(crate) fn set_prefetching(&mut self, on: bool) {
        self.prefetching = on;
    }

    /// Whether [`set_prefetching`](Self::set_prefetching) last turned it on.
    #[cfg(test)]
    pub(crate) fn is_prefetching(&self) -> bool {
        self.prefetching
    }

    /// Asks the memory system for the pool block the next schedule is
    /// likely to take, the head of the block free list (a timer scheduled
    /// into a bucket with room writes into that bucket's newest block
    /// instead). The payload slot needs no asking here: after a pop, the
    /// head of its free list is the slot the pop just freed, and each
    /// schedule asks for the one after it (see
    /// [`set_prefetching`](Self::set_prefetching)).
    #[inline]
    pub(crate) fn prefetch_next_schedule(&self) {
        if let Some(block) = self.blocks.get(self.free as usize) {
            crate::prefetch::value(block);
        }
    }

    /// Every pending timer's key and payload, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (TimerKey, &P)> + '_ {
        self.live.iter()
    }

    /// Entries the queue holds, pending or cancelled and not yet
    /// reclaimed: what its memory grows with.
    pub fn stored_entries(&self) -> usize {
        self.in_ring + self.draining.len() + self.in_place.len + self.late.len() + self.far.len()
    }

    /// Number of pending timers.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
}

/// A queue's state without its layout: the pending timers in pop order, the
/// payloads under their keys, and the next sequence number. It depends only
/// on what is pending, never on how the wheel got there (cancelled entries
/// still in a bucket, where the cursor stands), so two queues with the same
/// pending timers save, and checksum, the same.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SavedTimers<P> {
    next_seq: u64,
    timers: Vec<Entry>,
    payloads: Slots<TimerKey, P>,
}

impl<P> SavedTimers<P> {
    /// Each pending timer's instant and lane, with its payload.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (SimTime, Lane, TimerKey, &P)> + '_ {
        self.timers.iter().filter_map(|entry| {
            let payload = self.payloads.get(entry.key)?;
            Some((entry.at, entry.lane(), entry.key, payload))
        })
    }

    /// The same saved queue with every payload mapped by `f` (same keys,
    /// same order).
    pub(crate) fn map<Q>(&self, f: impl FnMut(&P) -> Q) -> SavedTimers<Q> {
        SavedTimers {
            next_seq: self.next_seq,
            timers: self.timers.clone(),
            payloads: self.payloads.map(f),
        }
    }

    /// Checks what a saved queue from outside must satisfy: every payload
    /// has exactly one timer, sequence numbers are unique and from the past.
    fn validate(&self) -> Result<(), &'static str> {
        if self.next_seq >= 1 << 63 {
            return Err("timer sequence number out of range");
        }
        if self.timers.len() != self.payloads.len() {
            return Err("saved timers and payloads do not pair up");
        }
        if !self.timers.is_sorted_by(|a, b| a < b) {
            return Err("saved timers are not in strictly increasing order");
        }
        let mut seqs: Vec<u64> = self.timers.iter().map(Entry::seq).collect();
        seqs.sort_unstable();
        if seqs.windows(2).any(|w| w[0] == w[1]) || seqs.last() >= Some(&self.next_seq) {
            return Err("a saved timer repeats a sequence number or comes from the future");
        }
        let mut keys: Vec<u64> = self.timers.iter().map(|e| e.key.data().as_ffi()).collect();
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1])
            || self
                .timers
                .iter()
                .any(|e| !self.payloads.contains_key(e.key))
        {
            return Err("a saved timer has no payload of its own");
        }
        Ok(())
    }
}

impl<P: Clone> TimerQueue<P> {
    /// The queue's state, for a snapshot.
    pub(crate) fn save(&self) -> SavedTimers<P> {
        SavedTimers {
            next_seq: self.next_seq,
            timers: self.pending(),
            payloads: self.live.clone(),
        }
    }

    /// Replaces everything pending with `saved`, reusing this queue's
    /// memory. `saved` must be valid (it came from [`save`](Self::save) or
    /// passed validation).
    pub(crate) fn load(&mut self, saved: &SavedTimers<P>) {
        for (word_index, word) in self.occupied.iter_mut().enumerate() {
            while *word != 0 {
                let slot = word_index * 64 + word.trailing_zeros() as usize;
                self.heads[slot] = NIL;
                *word &= *word - 1;
            }
        }
        self.unordered.fill(0);
        self.blocks.clear();
        self.skips.clear();
        self.free = NIL;
        self.in_ring = 0;
        self.draining.clear();
        self.in_place.blocks.clear();
        self.in_place.len = 0;
        self.late.clear();
        self.far.clear();
        // The cursor only has to stand at or before the first pending
        // bucket; the first pop moves it on.
        self.cursor = saved.timers.first().map_or(0, Entry::bucket);
        self.live = saved.payloads.clone();
        self.next_seq = saved.next_seq;
        for &entry in &saved.timers {
            self.place(entry);
        }
    }
}

impl<P: Serialize + Clone> Serialize for TimerQueue<P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.save().serialize(serializer)
    }
}

impl<'de, P: Deserialize<'de> + Clone> Deserialize<'de> for TimerQueue<P> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedTimers::<P>::deserialize(deserializer)?;
        saved.validate().map_err(serde::de::Error::custom)?;
        let mut queue = TimerQueue::default();
        queue.load(&saved);
        Ok(queue)
    }
}

impl<'de, P: Deserialize<'de>> SavedTimers<P> {
    /// Reads and validates a saved queue.
    pub(crate) fn deserialize_valid<D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Self, D::Error> {
        let saved = SavedTimers::<P>::deserialize(deserializer)?;
        saved.validate().map_err(serde::de::Error::custom)?;
        Ok(saved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{Rng, SeedableRng};

    fn at(micros: u64) -> SimTime {
        SimTime::from_micros(micros)
    }

    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = TimerQueue::new();
        q.schedule(at(20), "c");
        q.schedule(at(10), "a");
        q.schedule(at(10), "b");
        q.schedule(at(30), "d");
        assert_eq!(q.pop_due(at(25)), Some((at(10), "a")));
        assert_eq!(q.pop_due(at(25)), Some((at(10), "b")));
        assert_eq!(q.pop_due(at(25)), Some((at(20), "c")));
        assert_eq!(q.pop_due(at(25)), None, "d is not due yet");
        assert_eq!(q.next_due(), Some(at(30)));
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn due_tells_when_a_pending_timer_fires_wherever_it_is_stored() {
        let mut q = TimerQueue::new();
        let near = q.schedule(at(2_000), 'n');
        let far = q.schedule(at(500_000_000), 'f');
        let gone = q.schedule(at(3_000), 'g');
        q.cancel(gone);
        assert_eq!(
            (q.due(near), q.due(far), q.due(gone)),
            (Some(at(2_000)), Some(at(500_000_000)), None)
        );
        // Open the bucket: the rest of it is draining.
        let twin = q.schedule(at(2_001), 't');
        assert_eq!(q.pop_due(at(2_000)), Some((at(2_000), 'n')));
        assert_eq!((q.due(near), q.due(twin)), (None, Some(at(2_001))));
    }

    #[test]
    fn upcoming_names_the_open_bucket_s_next_timers_in_pop_order() {
        let mut q = TimerQueue::new();
        for (micros, name) in [(30, 'c'), (10, 'a'), (20, 'b'), (40, 'd'), (50, 'e')] {
            q.schedule(at(micros), name);
        }
        let cancelled = q.schedule(at(45), 'x');
        assert_eq!(q.upcoming(0), None, "no bucket is open yet");
        assert_eq!(q.pop_due(at(100)), Some((at(10), 'a')));
        let ahead: Vec<_> = (0..6).map(|k| q.upcoming(k).copied()).collect();
        assert_eq!(
            ahead,
            [Some('b'), Some('c'), Some('d'), Some('x'), Some('e'), None]
        );
        q.cancel(cancelled);
        assert_eq!(q.upcoming(3), None, "a cancelled timer names nothing");
        assert_eq!(q.pop_due(at(100)), Some((at(20), 'b')));
        assert_eq!(q.upcoming(0), Some(&'c'));
        // A hint with nothing to observe; asking past the open bucket's
        // end must still read nothing out of range.
        q.prefetch_upcoming(0);
        q.prefetch_upcoming(100);
    }

    #[test]
    fn expiries_come_first_at_equal_times() {
        let mut q = TimerQueue::new();
        q.schedule(at(10), "event scheduled early");
        q.schedule_in(at(10), Lane::Expiry, "expiry scheduled late");
        q.schedule(at(5), "earlier");
        assert_eq!(q.pop_due(at(10)), Some((at(5), "earlier")));
        assert_eq!(q.pop_due(at(10)), Some((at(10), "expiry scheduled late")));
        assert_eq!(q.pop_due(at(10)), Some((at(10), "event scheduled early")));
    }

    #[test]
    fn cancelled_timers_never_fire_and_stale_keys_do_nothing() {
        let mut q = TimerQueue::new();
        let a = q.schedule(at(5), 1);
        let b = q.schedule(at(6), 2);
        assert_eq!(q.cancel(a), Some(1));
        assert_eq!(q.cancel(a), None, "second cancel is a no-op");
        assert!(!q.is_pending(a) && q.is_pending(b));
        assert_eq!(q.next_due(), Some(at(6)));
        assert_eq!(q.pop_due(at(100)), Some((at(6), 2)));
        // The slot of `a` is reused; the old key must not reach the new timer.
        let c = q.schedule(at(7), 3);
        assert_eq!(q.cancel(a), None);
        assert!(q.is_pending(c));
        assert!(!q.is_empty());
        assert_eq!(q.pop_due(at(7)), Some((at(7), 3)));
        assert!(q.is_empty());
    }

    /// A kept timer stays pending without firing again; re-armed, it fires
    /// once, after what was scheduled before it at the same instant and
    /// before what is scheduled after; once popped for good (or
    /// cancelled), it cannot be re-armed.
    #[test]
    fn a_kept_timer_fires_again_only_when_rearmed() {
        let mut q = TimerQueue::new();
        let wake = q.schedule(at(5), 'w');
        let other = q.schedule(at(6), 'x');
        let keep = |p: &char| *p == 'w';
        assert_eq!(q.pop_due_keeping(at(5), keep), Some((at(5), wake, 'w')));
        assert!(q.is_pending(wake));
        assert_eq!(q.pop_due_keeping(at(50), keep), Some((at(6), other, 'x')));
        assert!(!q.is_pending(other));
        assert_eq!(q.len(), 1);
        q.schedule(at(60), 'a');
        assert!(q.rearm(wake, at(60), Lane::Normal));
        q.schedule(at(60), 'b');
        let popped: Vec<char> = std::iter::from_fn(|| q.pop_due_keeping(at(100), |_| false))
            .map(|(_, _, p)| p)
            .collect();
        assert_eq!(popped, ['a', 'w', 'b']);
        assert!(q.is_empty());
        assert!(!q.rearm(wake, at(200), Lane::Normal));
        assert_eq!(q.pop_due(at(300)), None);
    }

    #[test]
    fn timers_scheduled_into_the_open_bucket_keep_their_order() {
        let mut q = TimerQueue::new();
        for i in 0..5 {
            q.schedule(at(1_000), i);
        }
        q.schedule(at(1_010), 50);
        assert_eq!(q.pop_due(at(1_000)), Some((at(1_000), 0)));
        // Scheduled while the bucket is open: after the earlier ones at the
        // same instant, before the later instant, and an expiry jumps ahead.
        q.schedule(at(1_000), 10);
        q.schedule_in(at(1_000), Lane::Expiry, 11);
        q.schedule(at(990), 12);
        let order: Vec<_> = std::iter::from_fn(|| q.pop_due(at(2_000)).map(|(_, p)| p)).collect();
        assert_eq!(order, vec![12, 11, 1, 2, 3, 4, 10, 50]);
    }

    #[test]
    fn the_saved_form_does_not_depend_on_cancelled_leftovers() {
        let mut q = TimerQueue::new();
        let x = q.schedule(at(1_100), 'x');
        q.schedule(at(5_000), 'y');
        q.cancel(x);
        let mut restored: TimerQueue<char> =
            serde_json::from_str(&serde_json::to_string(&q).unwrap()).unwrap();
        // The original still holds the dead entry and steps over it.
        assert_eq!(q.pop_due(at(1_500)), None);
        assert_eq!(restored.pop_due(at(1_500)), None);
        let form = |q: &TimerQueue<char>| serde_json::to_string(q).unwrap();
        assert_eq!(form(&q), form(&restored));
        assert_eq!(q.pop_due(at(6_000)), restored.pop_due(at(6_000)));
    }

    #[test]
    fn inconsistent_saved_queues_are_refused() {
        let mut q = TimerQueue::new();
        q.schedule(at(10), 1u8);
        q.schedule(at(20), 2u8);
        let text = serde_json::to_string(&q).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let broken = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = value.clone();
            edit(&mut v);
            serde_json::from_value::<TimerQueue<u8>>(v).is_err()
        };
        // One timer listed twice, the other payload left without one.
        assert!(broken(&|v| {
            let first = v["timers"][0].clone();
            v["timers"][1] = first;
        }));
        // A sequence number from the future.
        assert!(broken(&|v| v["next_seq"] = serde_json::json!(1)));
        // Out of order.
        assert!(broken(&|v| {
            let t = v["timers"].as_array_mut().unwrap();
            t.swap(0, 1);
        }));
        assert!(serde_json::from_value::<TimerQueue<u8>>(value).is_ok());
    }

    /// Popping up to an instant's expiry lane takes what is due before the
    /// instant and the instant's expiries, and leaves its normal lane.
    #[test]
    fn popping_up_to_an_instants_expiries_leaves_its_normal_lane() {
        let mut q = TimerQueue::new();
        q.schedule_in(at(10), Lane::Normal, 'n');
        q.schedule_in(at(9), Lane::Normal, 'b');
        q.schedule_in(at(10), Lane::Expiry, 'e');
        q.schedule_in(at(10), Lane::Expiry, 'f');
        let mut popped = Vec::new();
        while let Some((_, _, p)) = q.pop_ends_keeping(at(10), |_| false) {
            popped.push(p);
        }
        assert_eq!(popped, ['b', 'e', 'f']);
        assert_eq!(q.pop_due(at(10)), Some((at(10), 'n')));
        assert_eq!(q.pop_due(at(10)), None);
    }

    /// An entry keeps its lane and sequence number in one word, but is
    /// saved as the four fields, so saves and checksums kept their shape.
    #[test]
    fn an_entry_is_packed_in_memory_and_saved_unpacked() {
        assert_eq!(std::mem::size_of::<Entry>(), 24);
        assert_eq!(std::mem::size_of::<Block>(), 128);
        let mut q = TimerQueue::new();
        q.schedule_in(at(10), Lane::Normal, 'n');
        q.schedule_in(at(10), Lane::Expiry, 'e');
        let value = serde_json::to_value(&q).unwrap();
        let timers = &value["timers"];
        assert_eq!(timers[0]["lane"], "Expiry");
        assert_eq!(timers[0]["seq"], 1);
        assert_eq!(timers[1]["lane"], "Normal");
        assert_eq!(timers[1]["seq"], 0);
        assert_eq!(
            timers[0].as_object().unwrap().keys().collect::<Vec<_>>(),
            ["at", "key", "lane", "seq"]
        );
        // A sequence number that would run into the lane's bit.
        let mut huge = value.clone();
        huge["timers"][1]["seq"] = serde_json::json!(1u64 << 63);
        let error = serde_json::from_value::<TimerQueue<char>>(huge).unwrap_err();
        assert!(
            error.to_string().contains("sequence number out of range"),
            "{error}"
        );
        let mut restored: TimerQueue<char> = serde_json::from_value(value).unwrap();
        assert_eq!(restored.pop_due(at(10)), Some((at(10), 'e')));
        assert_eq!(restored.pop_due(at(10)), Some((at(10), 'n')));
    }

    /// The counting pass alone puts a crowd scheduled in order in its exact
    /// order (the comparison sort after it is only for what it cannot).
    #[test]
    fn the_counting_pass_orders_a_crowd_scheduled_in_order() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let key = TimerKey::default();
        // Newest first, as a bucket's list holds them.
        let mut bucket: Vec<Entry> = (0..500u64)
            .map(|seq| {
                let lane = if seq % 2 == 0 {
                    Lane::Expiry
                } else {
                    Lane::Normal
                };
                Entry::new(
                    at(4_096 + u64::from(rng.next_u32() % 3) * 100),
                    lane,
                    seq,
                    key,
                )
            })
            .rev()
            .collect();
        assert!(!bucket.is_sorted_by(|a, b| a >= b));
        Crowd::default().spread(&mut bucket);
        assert!(bucket.is_sorted_by(|a, b| a >= b));
    }

    /// A bucket whose timers were scheduled in order is drained where its
    /// list lies: only the next few blocks are copied, each block goes
    /// back to the pool as it is read (and a timer scheduled meanwhile
    /// takes it), the timers named ahead across blocks are those that pop,
    /// and a save in the middle restores to the same pops.
    #[test]
    fn a_bucket_scheduled_in_order_is_drained_in_place() {
        let base = 1 << 20;
        let mut q = TimerQueue::new();
        for i in 0..53u32 {
            q.schedule(at(base + u64::from(i) * 10), i);
        }
        assert_eq!(q.blocks.len(), 11, "ten full blocks and a head of three");
        assert_eq!(q.pop_due(at(base + 1_000)), Some((at(base), 0)));
        assert!(q.in_place.len > 0 && q.draining.len() < IN_PLACE_READ * BLOCK);
        assert_eq!(q.stored_entries(), 52);
        let ahead: Vec<u32> = (0..52).map(|k| *q.upcoming(k).unwrap()).collect();
        assert_eq!(ahead, (1..53).collect::<Vec<_>>());
        assert_eq!(q.upcoming(52), None);
        assert_ne!(q.free, NIL, "the blocks read are free");
        q.schedule(at(base + 5_000), 99);
        assert_eq!(q.blocks.len(), 11, "and taken again");
        for i in 1..5u32 {
            assert_eq!(
                q.pop_due(at(base + 1_000)),
                Some((at(base + u64::from(i) * 10), i))
            );
        }
        // Into the open bucket, between two of its timers.
        q.schedule(at(base + 55), 100);
        let saved = serde_json::to_string(&q).unwrap();
        let mut restored: TimerQueue<u32> = serde_json::from_str(&saved).unwrap();
        let expected: Vec<u32> = [5, 100].into_iter().chain(6..53).chain([99]).collect();
        for queue in [&mut q, &mut restored] {
            let popped: Vec<u32> =
                std::iter::from_fn(|| queue.pop_due(at(base + 9_000)).map(|(_, p)| p)).collect();
            assert_eq!(popped, expected);
        }
        assert!(q.draining.capacity() < 30, "never copied whole");
    }

    /// One entry before the one added ahead of it, whether it joins the
    /// head block or starts a new one, sends its bucket through the copy
    /// and the sort; the pops are in order either way.
    #[test]
    fn a_bucket_with_an_entry_out_of_order_is_copied_and_sorted() {
        let base = 1 << 20;
        // Nine in order fill a block and most of another, ten fill two.
        for (times, late_one) in [(9, 45), (10, 45)] {
            let mut q = TimerQueue::new();
            for i in 0..times {
                q.schedule(at(base + 10 + i * 10), i as u32);
            }
            q.schedule(at(base + late_one), 100);
            let popped: Vec<u32> =
                std::iter::from_fn(|| q.pop_due(at(base + 1_000)).map(|(_, p)| p)).collect();
            let mut expected: Vec<(u64, u32)> =
                (0..times).map(|i| (10 + i * 10, i as u32)).collect();
            expected.push((late_one, 100));
            expected.sort_unstable();
            assert_eq!(popped, expected.iter().map(|e| e.1).collect::<Vec<_>>());
            assert!(q.draining.capacity() > BLOCK, "copied whole");
        }
    }

    /// A bucket crowded with fighters in step (a few instants, expiries and
    /// wake-ups interleaved) pops in exact order, including the entries a
    /// counting pass cannot order: timers scheduled out of order, timers
    /// arriving from the far heap behind newer ones, a timer from the past.
    #[test]
    fn crowded_buckets_pop_in_exact_order() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for round in 0..6u64 {
            let mut q = TimerQueue::new();
            let mut model = Vec::new();
            let mut push = |q: &mut TimerQueue<u32>, when: u64, lane, payload: u32| {
                let key = q.schedule_in(at(when), lane, payload);
                let seq = model.len() as u64;
                model.push((when, lane, seq, key, payload));
            };
            let base = (200_000_000 >> BUCKET_SHIFT << BUCKET_SHIFT) + round * 4_096;
            match round % 3 {
                // Beyond the horizon at first; the cursor then comes within
                // reach of their bucket without pulling them, so the newer
                // timers below go straight into the ring and these join the
                // bucket's list after them, out of schedule order.
                0 => {
                    (0..40).for_each(|i| push(&mut q, base + u64::from(i % 3), Lane::Normal, i));
                    assert_eq!(q.pop_due(at(base - 60_000_000)), None);
                }
                // The cursor stops at the empty bucket, then a timer from
                // before it joins that bucket.
                1 => {
                    assert_eq!(q.pop_due(at(base + 10)), None);
                    push(&mut q, base - 5, Lane::Normal, 40);
                }
                _ => {}
            }
            for i in 100..1_100u32 {
                let instant = u64::from(rng.next_u32() % 4) * 300;
                // From round 3 on, every seventh is out of schedule order
                // within its instant's microsecond.
                let jitter = u64::from(round >= 3 && i % 7 == 0);
                let lane = if i % 2 == 0 {
                    Lane::Expiry
                } else {
                    Lane::Normal
                };
                push(&mut q, base + instant + 1 - jitter, lane, i);
            }
            model.sort_by_key(|&(when, lane, seq, _, _)| (when, lane, seq));
            let until = at(base + 1_023);
            let popped: Vec<u32> =
                std::iter::from_fn(|| q.pop_due(until).map(|(_, p)| p)).collect();
            let expected: Vec<u32> = model.iter().map(|m| m.4).collect();
            assert_eq!(popped, expected, "round {round}");
        }
    }

    /// The wheel against the obvious model (a sorted list), under random
    /// schedules, cancels, pops and save/restore round trips, with times near
    /// and far beyond the ring.
    #[test]
    fn matches_a_sorted_reference_under_random_use() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
        for round in 0..40 {
            // Every other round prefetches: a hint, so the same pops.
            let prefetching = round % 2 == 1;
            let mut q = TimerQueue::new();
            q.set_prefetching(prefetching);
            let mut model: Vec<(SimTime, Lane, u64, TimerKey, u32)> = Vec::new();
            let mut now = 0u64;
            let mut seq = 0u64;
            for step in 0..2_000u32 {
                match rng.next_u32() % 10 {
                    0..=4 => {
                        // Some far, some crowding a few buckets (lists of
                        // several blocks), most within a few seconds.
                        let spread = match rng.next_u32() % 20 {
                            0 => 200_000_000,
                            1..=6 => 5_000,
                            _ => 3_000_000,
                        };
                        let when = now + u64::from(rng.next_u32()) % spread;
                        let lane = if rng.next_u32() % 3 == 0 {
                            Lane::Expiry
                        } else {
                            Lane::Normal
                        };
                        let key = q.schedule_in(at(when), lane, step);
                        model.push((at(when), lane, seq, key, step));
                        seq += 1;
                    }
                    5 => {
                        if !model.is_empty() {
                            let i = (rng.next_u32() as usize) % model.len();
                            let (when, _, _, key, payload) = model.remove(i);
                            if i % 8 == 0 {
                                // `due` walks every list: checked now and then.
                                assert_eq!(q.due(key), Some(when), "round {round} step {step}");
                            }
                            assert_eq!(q.cancel(key), Some(payload));
                        }
                    }
                    6 if rng.next_u32() % 16 == 0 => {
                        // Save and restore mid-run: same keys, same order,
                        // and the same saved form (nothing of the layout).
                        let saved = serde_json::to_string(&q).expect("serializes");
                        q = serde_json::from_str(&saved).expect("restores");
                        q.set_prefetching(prefetching);
                        assert_eq!(serde_json::to_string(&q).unwrap(), saved);
                    }
                    _ => {
                        now += u64::from(rng.next_u32()) % 500_000;
                        model.sort();
                        while model.first().is_some_and(|m| m.0 <= at(now)) {
                            let (when, _, _, _, payload) = model.remove(0);
                            assert_eq!(
                                q.pop_due(at(now)),
                                Some((when, payload)),
                                "round {round} step {step}"
                            );
                        }
                        assert_eq!(q.pop_due(at(now)), None, "round {round} step {step}");
                    }
                }
                assert_eq!(q.len(), model.len());
                if step % 64 == 0 {
                    assert_skips_name_two_blocks_on(&q);
                }
            }
        }
    }

    /// Long lists, opened while prefetching, their blocks then reused by
    /// new lists: the skip links stay right, and the pops are those of a
    /// queue that does not prefetch.
    #[test]
    fn skip_links_follow_long_lists_through_block_reuse() {
        let run = |prefetching: bool| {
            let mut q = TimerQueue::new();
            q.set_prefetching(prefetching);
            let mut popped = Vec::new();
            for wave in 0..3u64 {
                let base = wave * 10_000;
                // 60 timers in each of three buckets, interleaved: lists of
                // 12 blocks, each block's neighbours from the free list.
                for i in 0..180u64 {
                    let when = base + 2_000 + (i % 3) * 1_024 + i / 3;
                    q.schedule_in(at(when), Lane::Normal, (wave * 1_000 + i) as u32);
                }
                assert_skips_name_two_blocks_on(&q);
                while let Some(timer) = q.pop_due(at(base + 9_999)) {
                    popped.push(timer);
                }
            }
            popped
        };
        let plain = run(false);
        assert_eq!(plain.len(), 540);
        assert!(plain.is_sorted_by_key(|&(when, _)| when));
        assert_eq!(run(true), plain);
    }

    /// Each listed block's skip link names the block two places further
    /// along its list, whatever blocks were reused.
    fn assert_skips_name_two_blocks_on<P>(q: &TimerQueue<P>) {
        assert_eq!(q.skips.len(), q.blocks.len());
        let next = |index: u32| q.blocks.get(index as usize).map_or(NIL, |b| b.next);
        for head in q.occupied_heads() {
            let mut index = head;
            while index != NIL {
                assert_eq!(q.skip(index), next(next(index)));
                index = next(index);
            }
        }
    }
}
