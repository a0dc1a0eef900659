/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multiqueue block layer: the interface between block drivers and the
 * request engine in block/blk-mq*.c.
 *
 * A driver describes its hardware with a struct blk_mq_tag_set (number of
 * hardware queues, their depth, per-request payload size and the
 * struct blk_mq_ops callbacks), allocates the set once and then creates one
 * or more request queues / disks on it.  The engine hands requests to the
 * driver through ->queue_rq() and the driver reports completion with
 * blk_mq_complete_request() or blk_mq_end_request().
 *
 * See Documentation/block/blk-mq.rst for the design.
 */
#ifndef BLK_MQ_H
#define BLK_MQ_H

#include <linux/blkdev.h>
#include <linux/lockdep.h>
#include <linux/prefetch.h>
#include <linux/sbitmap.h>
#include <linux/scatterlist.h>

struct bio_set;
struct blk_flush_queue;
struct blk_mq_tags;

/* Request pool sizes: the smallest we accept and the usual default. */
#define BLKDEV_DEFAULT_RQ	128
#define BLKDEV_MIN_RQ		4

/*
 * ->end_io callbacks return whether the engine should free the request
 * (RQ_END_IO_FREE) or leave it alone because the callback kept or freed
 * it (RQ_END_IO_NONE).
 */
enum rq_end_io_ret { RQ_END_IO_NONE, RQ_END_IO_FREE };
typedef enum rq_end_io_ret (rq_end_io_fn)(struct request *, blk_status_t);

/* Request flags (rq->rq_flags), private to the block layer and drivers. */
typedef __u32 __bitwise req_flags_t;

/* the driver has started this request */
#define RQF_STARTED		((__force req_flags_t)(1 << 1))
/* requeued at the head of the queue */
#define RQF_SOFTBARRIER		((__force req_flags_t)(1 << 3))
/* part of a PREFLUSH/FUA sequence (blk-flush.c) */
#define RQF_FLUSH_SEQ		((__force req_flags_t)(1 << 4))
/* merge of different failfast types, fail bios separately */
#define RQF_MIXED_MERGE		((__force req_flags_t)(1 << 5))
/* flush request that borrowed the tag of a data request */
#define RQF_MQ_INFLIGHT		((__force req_flags_t)(1 << 6))
/* driver already prepared this request, don't prepare it again */
#define RQF_DONTPREP		((__force req_flags_t)(1 << 7))
/* driver internal error flag, ignored by the block layer */
#define RQF_FAILED		((__force req_flags_t)(1 << 10))
/* don't print errors */
#define RQF_QUIET		((__force req_flags_t)(1 << 11))
/* elevator private data attached (unused by the multiqueue engine) */
#define RQF_ELVPRIV		((__force req_flags_t)(1 << 12))
/* account into disk and partition statistics */
#define RQF_IO_STAT		((__force req_flags_t)(1 << 13))
/* runtime PM request */
#define RQF_PM			((__force req_flags_t)(1 << 15))
/* on an elevator merge hash (unused by the multiqueue engine) */
#define RQF_HASHED		((__force req_flags_t)(1 << 16))
/* track completion time for blk-stat */
#define RQF_STATS		((__force req_flags_t)(1 << 17))
/* data is in ->special_vec rather than the bio chain */
#define RQF_SPECIAL_PAYLOAD	((__force req_flags_t)(1 << 18))
/* the per-zone write lock is held for this request */
#define RQF_ZONE_WRITE_LOCKED	((__force req_flags_t)(1 << 19))
/* unused: kept for drivers that test it */
#define RQF_MQ_POLL_SLEPT	((__force req_flags_t)(1 << 20))
/* ->timeout() has been called, don't expire again */
#define RQF_TIMED_OUT		((__force req_flags_t)(1 << 21))
/* queue has an elevator (never set by the multiqueue engine) */
#define RQF_ELV			((__force req_flags_t)(1 << 22))
/* request holds a reserved tag */
#define RQF_RESV		((__force req_flags_t)(1 << 23))
/* counted in hctx->nr_busy: the driver has it */
#define RQF_DISPATCHED		((__force req_flags_t)(1 << 24))

/* flags that prevent us from merging requests: */
#define RQF_NOMERGE_FLAGS \
	(RQF_STARTED | RQF_SOFTBARRIER | RQF_FLUSH_SEQ | RQF_SPECIAL_PAYLOAD)

/* Life cycle of a request, in rq->state. */
enum mq_rq_state {
	MQ_RQ_IDLE		= 0,	/* allocated or free, not with the driver */
	MQ_RQ_IN_FLIGHT		= 1,	/* blk_mq_start_request() was called */
	MQ_RQ_COMPLETE		= 2,	/* driver completed it */
};

/*
 * struct request - one I/O as the driver sees it.
 *
 * Requests are preallocated, one per tag, with the driver's payload
 * (tag_set->cmd_size bytes) right behind the structure.  Fields the
 * block core outside the engine uses keep their traditional names.
 */
struct request {
	/* --- where it belongs --- */
	struct request_queue *q;
	struct blk_mq_hw_ctx *mq_hctx;	/* hardware context it goes to */
	struct blk_mq_ctx *mq_ctx;	/* software context: submitting CPU */
	int tag;			/* index handed to the driver */
	int internal_tag;		/* always BLK_MQ_NO_TAG here */

	/* --- what it does --- */
	blk_opf_t cmd_flags;		/* REQ_OP_* and REQ_* */
	req_flags_t rq_flags;		/* RQF_* */
	unsigned short ioprio;
	unsigned short write_hint;

	/* --- its data; use the blk_rq_*() accessors, not these --- */
	sector_t __sector;		/* next sector to transfer */
	unsigned int __data_len;	/* bytes still to transfer */
	struct bio *bio;		/* first bio ... */
	struct bio *biotail;		/* ... and last one */
	unsigned short nr_phys_segments; /* after physical merging */
#ifdef CONFIG_BLK_DEV_INTEGRITY
	unsigned short nr_integrity_segments;
#endif
	unsigned short stats_sectors;	/* for blk-stat; kept on partial end */
	struct block_device *part;	/* partition for accounting */
#ifdef CONFIG_BLK_INLINE_ENCRYPTION
	/* inline encryption: context and the keyslot it was programmed in */
	struct blk_crypto_keyslot *crypt_keyslot;
	struct bio_crypt_ctx *crypt_ctx;
#endif

	/* --- life cycle and timing --- */
	enum mq_rq_state state;
	atomic_t ref;
	unsigned int timeout;		/* jiffies; 0: the queue's default */
	unsigned long deadline;		/* jiffies when it times out */
	u64 start_time_ns;		/* allocated */
	u64 io_start_time_ns;		/* handed to the driver */
#ifdef CONFIG_BLK_RQ_ALLOC_TIME
	u64 alloc_time_ns;
#endif
#ifdef CONFIG_BLK_WBT
	unsigned short wbt_flags;
#endif

	/* --- list linkage; each union's members are never used together --- */
	union {
		struct list_head queuelist;	/* ctx, dispatch, requeue lists */
		struct request *rq_next;	/* singly linked plug lists */
	};
	union {
		struct llist_node ipi_list;	/* remote completion list */
		struct hlist_node hash;
	};
	union {
		struct bio_vec special_vec;	/* RQF_SPECIAL_PAYLOAD data */
		struct rb_node rb_node;
		void *completion_data;
	};
	union {
		u64 fifo_time;
		struct __call_single_data csd;	/* remote completion IPI */
	};
	/* a flush sequence and scheduler data never meet on one request */
	union {
		struct {
			struct list_head	list;
			rq_end_io_fn		*saved_end_io;
			unsigned int		seq;
		} flush;
		struct {
			void			*priv[2];
			struct io_cq		*icq;
		} elv;
	};

	/* --- completion callback of non-bio (passthrough) requests --- */
	void *end_io_data;
	rq_end_io_fn *end_io;
};

/* The REQ_OP_* part of cmd_flags. */
static inline enum req_op req_op(const struct request *req)
{
	return (enum req_op)(req->cmd_flags & REQ_OP_MASK);
}

static inline unsigned short req_get_ioprio(struct request *req)
{
	return req->ioprio;
}

/* Driver-private commands (SCSI, NVMe admin, ...) rather than data I/O. */
static inline bool blk_rq_is_passthrough(struct request *rq)
{
	enum req_op op = req_op(rq);

	return blk_op_is_passthrough(op);
}

/* Direction as READ/WRITE and as a DMA direction. */
#define rq_data_dir(rq)	\
	(op_is_write(req_op(rq)) ? WRITE : READ)
#define rq_dma_dir(rq)	\
	(op_is_write(req_op(rq)) ? DMA_TO_DEVICE : DMA_FROM_DEVICE)

/*
 * Singly linked request lists (plug lists, batches): a list is a pointer
 * to its first request, linked through rq->rq_next.
 */
#define rq_list_next(rq)	((rq)->rq_next)
#define rq_list_empty(list)	(!(list))

/* Push @rq on the front of the list at @listptr. */
static inline void rq_list_add(struct request **listptr, struct request *rq)
{
	rq->rq_next = *listptr;
	*listptr = rq;
}

/*
 * Append @rq: @lastpptr points at the list's final ->rq_next pointer
 * (or at the head of an empty list) and is moved on to @rq's.
 */
static inline void rq_list_add_tail(struct request ***lastpptr,
				    struct request *rq)
{
	struct request **slot = *lastpptr;

	rq->rq_next = NULL;
	*slot = rq;
	*lastpptr = &rq->rq_next;
}

/* First request of the list, or NULL; the list is left alone. */
static inline struct request *rq_list_peek(struct request **listptr)
{
	return listptr ? *listptr : NULL;
}

/* Take the first request off the list; NULL when there is none. */
static inline struct request *rq_list_pop(struct request **listptr)
{
	struct request *first = rq_list_peek(listptr);

	if (first)
		*listptr = first->rq_next;
	return first;
}

#define rq_list_for_each(listptr, pos)					\
	for ((pos) = rq_list_peek(listptr); (pos);			\
	     (pos) = rq_list_next(pos))

/* Like rq_list_for_each(), but @pos may be unlinked inside the loop. */
#define rq_list_for_each_safe(listptr, pos, nxt)			\
	for ((pos) = rq_list_peek(listptr),				\
	     (nxt) = rq_list_next(pos);					\
	     (pos);							\
	     (pos) = (nxt), (nxt) = (pos) ? rq_list_next(pos) : NULL)

/**
 * rq_list_move() - move a request from one singly linked list to another
 * @src: list @rq is on
 * @dst: list @rq is pushed onto
 * @rq: the request
 * @prev: the request before @rq on @src, or NULL if @rq is the first
 */
static inline void rq_list_move(struct request **src, struct request **dst,
				struct request *rq, struct request *prev)
{
	/* unlink: whoever pointed at @rq now points past it */
	struct request **link = prev ? &prev->rq_next : src;

	*link = rq->rq_next;
	rq_list_add(dst, rq);
}

/**
 * enum blk_eh_timer_return - what the driver's ->timeout() decided
 * @BLK_EH_DONE: the driver completed the request or will complete it
 * @BLK_EH_RESET_TIMER: give the request another full timeout
 */
enum blk_eh_timer_return {
	BLK_EH_DONE,
	BLK_EH_RESET_TIMER,
};

#define BLK_TAG_ALLOC_FIFO 0	/* allocation policies: accepted, ignored */
#define BLK_TAG_ALLOC_RR 1

/**
 * struct blk_mq_hw_ctx - hardware dispatch context
 *
 * One per hardware queue of the driver.  It collects the requests that
 * the software contexts (CPUs) mapped to it have queued and hands them to
 * ->queue_rq().  Drivers may use @driver_data, @queue, @queue_num, @type,
 * @flags, @numa_node and @cpumask; everything else is the engine's.
 */
struct blk_mq_hw_ctx {
	/** @lock: protects @dispatch. */
	spinlock_t		lock ____cacheline_aligned_in_smp;
	/**
	 * @dispatch: requests taken from the software contexts that the
	 * driver refused (busy) or that bypass them (requeue, flush data);
	 * they go out before anything else.
	 */
	struct list_head	dispatch;
	/** @state: BLK_MQ_S_* bits. */
	unsigned long		state;

	/** @run_work: runs the queue from kblockd. */
	struct delayed_work	run_work ____cacheline_aligned_in_smp;
	/** @cpumask: CPUs whose software context maps here. */
	cpumask_var_t		cpumask;
	/** @next_cpu: round robin hint for kblockd runs. */
	int			next_cpu;

	/** @flags: BLK_MQ_F_* copied from the tag set. */
	unsigned long		flags;

	/** @driver_data: for the driver, set in ->init_hctx(). */
	void			*driver_data;

	/** @ctx_map: bit i set = @ctxs[i] has queued requests. */
	unsigned long		*ctx_map;
	/** @ctxs: software contexts mapped to this hardware context. */
	struct blk_mq_ctx	**ctxs;
	/** @nr_ctx: number of entries in @ctxs. */
	unsigned short		nr_ctx;

	/** @type: HCTX_TYPE_* of the map this context serves. */
	unsigned short		type;
	/** @queue_num: index of this hardware queue. */
	unsigned int		queue_num;
	/** @numa_node: node of the hardware queue. */
	unsigned int		numa_node;

	/** @tags: tags and requests of this hardware queue. */
	struct blk_mq_tags	*tags;
	/** @nr_busy: requests handed to the driver and not yet freed. */
	atomic_t		nr_busy;

	/** @queue: the request queue this context belongs to. */
	struct request_queue	*queue;
	/** @fq: PREFLUSH/FUA state machine (blk-flush.c). */
	struct blk_flush_queue	*fq;

	/** @queued: requests inserted. */
	unsigned long		queued;
	/** @run: times the queue was run. */
	unsigned long		run;
	/** @dispatched: requests accepted by ->queue_rq(). */
	unsigned long		dispatched;
	/** @busy_count: ->queue_rq() returned busy. */
	unsigned long		busy_count;

	/** @kobj: /sys/block/<dev>/mq/<queue_num>. */
	struct kobject		kobj;

	/**
	 * @cpuhp_online: node in the CPU hotplug "online" state list, which
	 * drains this context before its last CPU goes offline.
	 */
	struct hlist_node	cpuhp_online;
	/** @cpuhp_dead: node in the CPU hotplug "dead" state list. */
	struct hlist_node	cpuhp_dead;
};

/**
 * struct blk_mq_queue_map - CPU to hardware queue map of one queue type
 * @mq_map: hardware queue index per possible CPU
 * @nr_queues: hardware queues of this type
 * @queue_offset: first hardware queue of this type
 */
struct blk_mq_queue_map {
	unsigned int queue_offset;
	unsigned int nr_queues;
	unsigned int *mq_map;
};

/**
 * enum hctx_type - kinds of hardware queue a driver may offer
 * @HCTX_TYPE_DEFAULT: all I/O not mapped otherwise
 * @HCTX_TYPE_READ: reads, when the driver has a separate map for them
 * @HCTX_TYPE_POLL: polled I/O (not used by this engine: no polling)
 * @HCTX_MAX_TYPES: number of types
 */
enum hctx_type {
	HCTX_TYPE_DEFAULT,	/* 0 */
	HCTX_TYPE_READ,		/* 1 */
	HCTX_TYPE_POLL,		/* 2 */
	HCTX_MAX_TYPES,		/* count, not a type */
};

/**
 * struct blk_mq_tag_set - what a driver's hardware looks like
 * @map: CPU to hardware queue maps, one per &enum hctx_type
 * @nr_maps: maps the driver uses (1 if it leaves it 0)
 * @ops: driver callbacks
 * @nr_hw_queues: hardware queues
 * @queue_depth: tags per hardware queue, reserved ones included
 * @reserved_tags: tags kept for BLK_MQ_REQ_RESERVED allocations
 * @cmd_size: bytes of driver payload behind each request
 * @numa_node: node for allocations, or NUMA_NO_NODE
 * @timeout: request timeout in jiffies (0: 30 seconds)
 * @flags: BLK_MQ_F_*
 * @driver_data: for the driver
 * @tags: tags and requests, one per hardware queue
 * @shared_tags: the single tag map when BLK_MQ_F_TAG_HCTX_SHARED
 * @tag_list_lock: protects @tag_list
 * @tag_list: request queues using this set
 */
struct blk_mq_tag_set {
	/* filled in by the driver */
	const struct blk_mq_ops	*ops;
	void			*driver_data;
	unsigned int		flags;
	unsigned int		cmd_size;
	unsigned int		nr_hw_queues;
	unsigned int		reserved_tags;
	unsigned int		queue_depth;
	unsigned int		timeout;
	int			numa_node;
	unsigned int		nr_maps;
	struct blk_mq_queue_map	map[HCTX_MAX_TYPES];

	/* the engine's */
	struct blk_mq_tags	*shared_tags;
	struct blk_mq_tags	**tags;
	struct list_head	tag_list;
	struct mutex		tag_list_lock;	/* protects tag_list */
};

/**
 * struct blk_mq_queue_data - argument of ->queue_rq()
 * @rq: the request
 * @last: no further request follows in this run (ring the doorbell)
 */
struct blk_mq_queue_data {
	bool last;
	struct request *rq;
};

/* Callback of blk_mq_tagset_busy_iter(); return false to stop. */
typedef bool (busy_tag_iter_fn)(struct request *, void *);

/**
 * struct blk_mq_ops - driver callbacks
 */
struct blk_mq_ops {
	/**
	 * @queue_rq: hand one request to the hardware.  Return BLK_STS_OK
	 * when the driver owns it; BLK_STS_RESOURCE or
	 * BLK_STS_DEV_RESOURCE when it is busy (the engine keeps the request
	 * and runs the queue again later); any other status ends the
	 * request with that error.
	 */
	blk_status_t (*queue_rq)(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd);

	/**
	 * @commit_rqs: the last ->queue_rq() of a run had bd->last false and
	 * nothing followed; kick the hardware now.
	 */
	void (*commit_rqs)(struct blk_mq_hw_ctx *hctx);

	/** @queue_rqs: not called by this engine; kept for drivers. */
	void (*queue_rqs)(struct request **rqlist);

	/** @get_budget: not called by this engine. */
	int (*get_budget)(struct request_queue *q);
	/** @put_budget: not called by this engine. */
	void (*put_budget)(struct request_queue *q, int budget_token);
	/** @set_rq_budget_token: not called by this engine. */
	void (*set_rq_budget_token)(struct request *rq, int token);
	/** @get_rq_budget_token: not called by this engine. */
	int (*get_rq_budget_token)(struct request *rq);

	/** @timeout: a request reached its deadline. */
	enum blk_eh_timer_return (*timeout)(struct request *rq);

	/** @poll: not called by this engine (no polled queues). */
	int (*poll)(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob);

	/** @complete: finish a request, on the CPU that submitted it. */
	void (*complete)(struct request *rq);

	/** @init_hctx: a hardware context was set up. */
	int (*init_hctx)(struct blk_mq_hw_ctx *hctx, void *driver_data,
			 unsigned int hctx_idx);
	/** @exit_hctx: a hardware context goes away. */
	void (*exit_hctx)(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx);

	/** @init_request: set up the payload of one preallocated request. */
	int (*init_request)(struct blk_mq_tag_set *set, struct request *rq,
			    unsigned int hctx_idx, unsigned int numa_node);
	/** @exit_request: counterpart of @init_request. */
	void (*exit_request)(struct blk_mq_tag_set *set, struct request *rq,
			     unsigned int hctx_idx);

	/** @cleanup_rq: release driver resources of a request not completed. */
	void (*cleanup_rq)(struct request *rq);

	/** @busy: is the device busy (used by stacking drivers). */
	bool (*busy)(struct request_queue *q);

	/** @map_queues: fill set->map[]; blk_mq_map_queues() otherwise. */
	void (*map_queues)(struct blk_mq_tag_set *set);

#ifdef CONFIG_BLK_DEBUG_FS
	/**
	 * @show_rq: print driver details of a request; kept so drivers
	 * build, this engine has no debugfs to call it from.
	 */
	void (*show_rq)(struct seq_file *m, struct request *rq);
#endif
};

/* tag_set->flags (BLK_MQ_F_*), hctx->state bits (BLK_MQ_S_*), limits */
enum {
	BLK_MQ_F_SHOULD_MERGE	= 1 << 0,
	BLK_MQ_F_TAG_QUEUE_SHARED = 1 << 1,
	/* a request may be passed to the driver more than once (stacking) */
	BLK_MQ_F_STACKING	= 1 << 2,
	/* all hardware queues share one tag map */
	BLK_MQ_F_TAG_HCTX_SHARED = 1 << 3,
	/* ->queue_rq() may sleep: dispatch under SRCU, never atomic */
	BLK_MQ_F_BLOCKING	= 1 << 5,
	/* accepted for compatibility: there is no scheduler to refuse */
	BLK_MQ_F_NO_SCHED	= 1 << 6,
	BLK_MQ_F_NO_SCHED_BY_DEFAULT	= 1 << 7,
	/* one bit at bit 8 holds the BLK_TAG_ALLOC_* policy */
	BLK_MQ_F_ALLOC_POLICY_START_BIT = 8,
	BLK_MQ_F_ALLOC_POLICY_BITS = 1,

	/* hctx->state bits */
	BLK_MQ_S_STOPPED	= 0,	/* driver stopped the queue */
	BLK_MQ_S_TAG_ACTIVE	= 1,
	BLK_MQ_S_SCHED_RESTART	= 2,	/* rerun when a request completes */
	BLK_MQ_S_INACTIVE	= 3,	/* its last CPU is going offline */

	BLK_MQ_MAX_DEPTH	= 10240,

	BLK_MQ_CPU_WORK_BATCH	= 8,
};

/* Value mask of the policy field, before shifting into place. */
#define __BLK_MQ_ALLOC_POLICY_MASK	((1 << BLK_MQ_F_ALLOC_POLICY_BITS) - 1)
#define BLK_ALLOC_POLICY_TO_MQ_FLAG(policy)				\
	(((policy) & __BLK_MQ_ALLOC_POLICY_MASK) <<			\
	 BLK_MQ_F_ALLOC_POLICY_START_BIT)
#define BLK_MQ_FLAG_TO_ALLOC_POLICY(flags)				\
	(__BLK_MQ_ALLOC_POLICY_MASK &					\
	 ((flags) >> BLK_MQ_F_ALLOC_POLICY_START_BIT))

/* "no particular hardware queue" */
#define BLK_MQ_NO_HCTX_IDX	(-1U)

/* Tag sets */
int blk_mq_alloc_sq_tag_set(struct blk_mq_tag_set *set,
			    const struct blk_mq_ops *ops,
			    unsigned int queue_depth, unsigned int set_flags);
int blk_mq_alloc_tag_set(struct blk_mq_tag_set *set);
void blk_mq_free_tag_set(struct blk_mq_tag_set *set);

/* Queues and disks */
struct request_queue *blk_mq_init_queue(struct blk_mq_tag_set *set);
int blk_mq_init_allocated_queue(struct blk_mq_tag_set *set,
				struct request_queue *q);
void blk_mq_destroy_queue(struct request_queue *q);
bool blk_mq_queue_inflight(struct request_queue *q);
struct gendisk *blk_mq_alloc_disk_for_queue(struct request_queue *q,
					    struct lock_class_key *lkclass);
struct gendisk *__blk_mq_alloc_disk(struct blk_mq_tag_set *set,
				    void *queuedata,
				    struct lock_class_key *lkclass);
/* each call site gets its own lockdep class for the disk */
#define blk_mq_alloc_disk(set, queuedata)				\
({									\
	static struct lock_class_key __blk_mq_disk_key;			\
	__blk_mq_alloc_disk((set), (queuedata), &__blk_mq_disk_key);	\
})

void blk_mq_free_request(struct request *rq);

/* Flags of blk_mq_alloc_request*(). */
enum {
	/* fail, don't wait for a tag */
	BLK_MQ_REQ_NOWAIT	= (__force blk_mq_req_flags_t)(1 << 0),
	/* take a reserved tag */
	BLK_MQ_REQ_RESERVED	= (__force blk_mq_req_flags_t)(1 << 1),
	/* runtime PM: mark RQF_PM */
	BLK_MQ_REQ_PM		= (__force blk_mq_req_flags_t)(1 << 2),
};

struct request *blk_mq_alloc_request_hctx(struct request_queue *q,
					  blk_opf_t opf,
					  blk_mq_req_flags_t flags,
					  unsigned int hctx_idx);
struct request *blk_mq_alloc_request(struct request_queue *q, blk_opf_t opf,
				     blk_mq_req_flags_t flags);

/*
 * A tag map is a bitmap split into words that each sit on their own cache
 * line.  Every CPU remembers, in @hint, where it last allocated, so CPUs
 * hitting one map tend to work in different words and a free on the
 * allocating CPU puts the tag back where that CPU looks first: the common
 * alloc/free pair touches one cache line that stays with the CPU.
 */
struct blk_mq_tag_word {
	unsigned long busy;		/* bit set: tag in use */
} ____cacheline_aligned_in_smp;

struct blk_mq_tag_map {
	unsigned int depth;		/* tags in the map */
	unsigned int limit;		/* tags handed out: <= depth */
	unsigned int shift;		/* log2 of tags per word */
	unsigned int nr_words;
	struct blk_mq_tag_word *words;
	unsigned int __percpu *hint;	/* next tag to try, per CPU */
	wait_queue_head_t wait;		/* tasks waiting for a free tag */
};

/*
 * The tags of one hardware queue (or of all of them, with
 * BLK_MQ_F_TAG_HCTX_SHARED).  Tags 0 .. nr_reserved_tags - 1 are reserved,
 * the rest normal.  Each tag owns one preallocated request.
 */
struct blk_mq_tags {
	unsigned int nr_tags;
	unsigned int nr_reserved_tags;

	struct blk_mq_tag_map reserved;
	struct blk_mq_tag_map normal;

	/* the request whose tag this is: preallocated, set once */
	struct request **static_rqs;
	/*
	 * the request the driver was last given with this tag: normally the
	 * static one, but a flush request borrows its data request's tag
	 */
	struct request **rqs;
	/*
	 * held by a tag iterator from its load of rqs[] to its reference,
	 * and once by blk_mq_exit_hctx() after it forgets its flush request
	 */
	spinlock_t lock;

	/* memory behind static_rqs */
	void *rq_mem;
};

/**
 * blk_mq_tag_to_rq - the request the driver was last given with a tag
 * @tags: the tags of the hardware queue (hctx->tags)
 * @tag: the tag
 *
 * Return: the request, or NULL for an out-of-range tag.
 */
static inline struct request *blk_mq_tag_to_rq(struct blk_mq_tags *tags,
					       unsigned int tag)
{
	struct request *found;

	if (unlikely(tag >= tags->nr_tags))
		return NULL;
	found = tags->rqs[tag];
	/* the caller is about to look at it */
	prefetch(found);
	return found;
}

/* A unique tag: hardware queue index in the top half, tag in the bottom. */
u32 blk_mq_unique_tag(struct request *rq);
enum {
	BLK_MQ_UNIQUE_TAG_BITS = 16,
	BLK_MQ_UNIQUE_TAG_MASK = (1 << BLK_MQ_UNIQUE_TAG_BITS) - 1,
};

static inline u16 blk_mq_unique_tag_to_tag(u32 unique_tag)
{
	return (u16)(unique_tag & BLK_MQ_UNIQUE_TAG_MASK);
}

static inline u16 blk_mq_unique_tag_to_hwq(u32 unique_tag)
{
	return (u16)(unique_tag >> BLK_MQ_UNIQUE_TAG_BITS);
}

/**
 * blk_mq_rq_state() - read the life cycle state of a request
 * @rq: the request
 */
static inline enum mq_rq_state blk_mq_rq_state(struct request *rq)
{
	/* may change under us: the completion side writes it locklessly */
	return READ_ONCE(rq->state);
}

/* In flight or already completed: anything but idle. */
static inline int blk_mq_request_started(struct request *rq)
{
	enum mq_rq_state now = blk_mq_rq_state(rq);

	return now == MQ_RQ_IN_FLIGHT || now == MQ_RQ_COMPLETE;
}

static inline int blk_mq_request_completed(struct request *rq)
{
	enum mq_rq_state now = blk_mq_rq_state(rq);

	return now == MQ_RQ_COMPLETE;
}

/*
 * For drivers that complete a request outside blk_mq_complete_request()
 * but still want blk_mq_request_completed() to be true.
 */
static inline void blk_mq_set_request_complete(struct request *rq)
{
	WRITE_ONCE(rq->state, MQ_RQ_COMPLETE);
}

/*
 * Complete a request directly in the caller's context, with @complete
 * instead of the queue's ->complete().
 */
static inline void blk_mq_complete_request_direct(struct request *rq,
						  void (*complete)(struct request *rq))
{
	blk_mq_set_request_complete(rq);
	complete(rq);
}

/* Driver side of a request's life: start, then end (or requeue). */
void blk_mq_start_request(struct request *rq);
void __blk_mq_end_request(struct request *rq, blk_status_t error);
#ifdef CONFIG_BLK_MQ
void blk_mq_end_request(struct request *rq, blk_status_t error);
#else
/*
 * Without the engine no request comes from a tag set; blk-flush.c, whose
 * flush sequences only multiqueue queues use, still names this.
 */
static inline void blk_mq_end_request(struct request *rq, blk_status_t error)
{
	WARN_ON_ONCE(1);
}
#endif
void blk_mq_end_request_batch(struct io_comp_batch *ib);

/* Someone will look at the request's times: accounting, stats, ->end_io. */
static inline bool blk_mq_need_time_stamp(struct request *rq)
{
	if (rq->end_io)
		return true;
	return rq->rq_flags & (RQF_IO_STAT | RQF_STATS);
}

static inline bool blk_mq_is_reserved_rq(struct request *rq)
{
	return rq->rq_flags & RQF_RESV;
}

/*
 * Completion batches belong to polled I/O, which this engine does not
 * offer: refuse, and the driver completes the request on its own.
 */
static inline bool blk_mq_add_to_batch(struct request *req,
				       struct io_comp_batch *iob, int ioerror,
				       void (*complete)(struct io_comp_batch *))
{
	return false;
}

/* Retrying and completing */
void blk_mq_requeue_request(struct request *rq, bool kick_requeue_list);
void blk_mq_kick_requeue_list(struct request_queue *q);
void blk_mq_delay_kick_requeue_list(struct request_queue *q, unsigned long msecs);
bool blk_mq_complete_request_remote(struct request *rq);
void blk_mq_complete_request(struct request *rq);
unsigned int blk_mq_rq_cpu(struct request *rq);

/* Stopping and starting hardware queues */
void blk_mq_stop_hw_queue(struct blk_mq_hw_ctx *hctx);
void blk_mq_stop_hw_queues(struct request_queue *q);
void blk_mq_start_hw_queue(struct blk_mq_hw_ctx *hctx);
void blk_mq_start_hw_queues(struct request_queue *q);
void blk_mq_start_stopped_hw_queue(struct blk_mq_hw_ctx *hctx, bool async);
void blk_mq_start_stopped_hw_queues(struct request_queue *q, bool async);

/* Running hardware queues */
void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx, bool async);
void blk_mq_run_hw_queues(struct request_queue *q, bool async);
void blk_mq_delay_run_hw_queue(struct blk_mq_hw_ctx *hctx, unsigned long msecs);
void blk_mq_delay_run_hw_queues(struct request_queue *q, unsigned long msecs);

/* Quiescing: no ->queue_rq() calls, submitters keep queueing */
void blk_mq_quiesce_queue_nowait(struct request_queue *q);
void blk_mq_wait_quiesce_done(struct request_queue *q);
#ifdef CONFIG_BLK_MQ
void blk_mq_quiesce_queue(struct request_queue *q);
void blk_mq_unquiesce_queue(struct request_queue *q);
#else
/* Without the engine nothing dispatches through ->queue_rq() to stop. */
static inline void blk_mq_quiesce_queue(struct request_queue *q)
{
}

static inline void blk_mq_unquiesce_queue(struct request_queue *q)
{
}
#endif

/* Freezing: no new requests, wait for the old ones */
void blk_mq_freeze_queue(struct request_queue *q);
void blk_freeze_queue_start(struct request_queue *q);
int blk_mq_freeze_queue_wait_timeout(struct request_queue *q,
				     unsigned long timeout);
void blk_mq_freeze_queue_wait(struct request_queue *q);
void blk_mq_unfreeze_queue(struct request_queue *q);

/* Iterating, mapping, resizing */
void blk_mq_tagset_busy_iter(struct blk_mq_tag_set *tagset,
			     busy_tag_iter_fn *fn, void *priv);
void blk_mq_tagset_wait_completed_request(struct blk_mq_tag_set *tagset);
void blk_mq_map_queues(struct blk_mq_queue_map *qmap);
void blk_mq_update_nr_hw_queues(struct blk_mq_tag_set *set, int nr_hw_queues);

bool __blk_should_fake_timeout(struct request_queue *q);
/* Request cloning, for request-based stacking drivers (dm-multipath) */
int blk_rq_prep_clone(struct request *rq, struct request *rq_src,
		      struct bio_set *bs, gfp_t gfp_mask,
		      int (*bio_ctr)(struct bio *, struct bio *, void *),
		      void *data);
void blk_rq_unprep_clone(struct request *rq);
blk_status_t blk_insert_cloned_request(struct request *rq);

/* Fault injection: pretend the completion of a request got lost. */
static inline bool blk_should_fake_timeout(struct request_queue *q)
{
	if (!IS_ENABLED(CONFIG_FAIL_IO_TIMEOUT))
		return false;
	return test_bit(QUEUE_FLAG_FAIL_IO, &q->queue_flags) &&
		__blk_should_fake_timeout(q);
}

/**
 * blk_mq_rq_from_pdu - the request owning a driver payload
 * @pdu: pointer returned by blk_mq_rq_to_pdu()
 */
static inline struct request *blk_mq_rq_from_pdu(void *pdu)
{
	/* the payload starts right after the request */
	return (struct request *)pdu - 1;
}

/**
 * blk_mq_rq_to_pdu - the driver payload (tag_set->cmd_size bytes) of a request
 * @rq: the request
 */
static inline void *blk_mq_rq_to_pdu(struct request *rq)
{
	return (void *)&rq[1];
}

/* Every hardware context of @q; @i is its index. */
#define queue_for_each_hw_ctx(q, hctx, i)				\
	xa_for_each(&(q)->hctx_table, (i), (hctx))

/* Every software context mapped to @hctx. */
#define hctx_for_each_ctx(hctx, ctx, i)					\
	for ((i) = 0;							\
	     (i) < (hctx)->nr_ctx && (((ctx) = (hctx)->ctxs[(i)]), 1);	\
	     (i)++)

static inline void blk_mq_cleanup_rq(struct request *rq)
{
	const struct blk_mq_ops *ops = rq->q->mq_ops;

	if (ops->cleanup_rq)
		ops->cleanup_rq(rq);
}

/* Make @bio the only bio of a fresh @rq. */
static inline void blk_rq_bio_prep(struct request *rq, struct bio *bio,
				   unsigned int nr_segs)
{
	rq->bio = bio;
	rq->biotail = bio;
	rq->__data_len = bio->bi_iter.bi_size;
	rq->nr_phys_segments = nr_segs;
	rq->ioprio = bio_prio(bio);
}

/* Synchronous I/O: reads, and writes marked REQ_SYNC (plus flushes). */
static inline bool rq_is_sync(struct request *rq)
{
	blk_opf_t opf = rq->cmd_flags;

	return op_is_sync(opf);
}

void blk_rq_init(struct request_queue *q, struct request *rq);
void blk_mq_hctx_set_fq_lock_class(struct blk_mq_hw_ctx *hctx,
				   struct lock_class_key *key);

/* Pages supplied by the caller of blk_rq_map_user*() (e.g. sg). */
struct rq_map_data {
	struct page **pages;
	unsigned short nr_entries;
	unsigned short page_order;
	unsigned long offset;
	bool from_user;
	bool null_mapped;
};

/* Passthrough: attach user or kernel buffers, then execute. */
int blk_rq_map_kern(struct request_queue *q, struct request *rq, void *kbuf,
		    unsigned int len, gfp_t gfp_mask);
int blk_rq_map_user(struct request_queue *q, struct request *rq,
		    struct rq_map_data *map_data, void __user *ubuf,
		    unsigned long len, gfp_t gfp_mask);
int blk_rq_map_user_iov(struct request_queue *q, struct request *rq,
			struct rq_map_data *map_data,
			const struct iov_iter *iter, gfp_t gfp_mask);
int blk_rq_map_user_io(struct request *req, struct rq_map_data *map_data,
		       void __user *ubuf, unsigned long buf_len, gfp_t gfp_mask,
		       bool vec, int iov_count, bool check_iter_count, int rw);
int blk_rq_unmap_user(struct bio *bio);
int blk_rq_append_bio(struct request *rq, struct bio *bio);
blk_status_t blk_execute_rq(struct request *rq, bool at_head);
void blk_execute_rq_nowait(struct request *rq, bool at_head);
bool blk_rq_is_poll(struct request *rq);

/* Cursor of rq_for_each_segment() / rq_for_each_bvec(). */
struct req_iterator {
	struct bio *bio;
	struct bvec_iter iter;
};

#define __rq_for_each_bio(_bio, rq)					\
	for ((_bio) = (rq)->bio; (_bio); (_bio) = (_bio)->bi_next)

/* single-page segments of every bio */
#define rq_for_each_segment(bvl, _rq, _iter)				\
	for ((_iter).bio = (_rq)->bio; (_iter).bio;			\
	     (_iter).bio = (_iter).bio->bi_next)			\
		bio_for_each_segment((bvl), (_iter).bio, (_iter).iter)

/* multi-page bvecs of every bio */
#define rq_for_each_bvec(bvl, _rq, _iter)				\
	for ((_iter).bio = (_rq)->bio; (_iter).bio;			\
	     (_iter).bio = (_iter).bio->bi_next)			\
		bio_for_each_bvec((bvl), (_iter).bio, (_iter).iter)

/* @bvec is the request's final one */
#define rq_iter_last(bvec, _iter)					\
	(!(_iter).bio->bi_next &&					\
	 bio_iter_last((bvec), (_iter).iter))

/*
 * A request's position and size as they stand now: partial completion
 * (blk_update_request()) moves the position on and shrinks the size.
 * "cur" variants describe only the first segment still to go.
 */
static inline unsigned int blk_rq_bytes(const struct request *rq)
{
	return rq->__data_len;
}

static inline sector_t blk_rq_pos(const struct request *rq)
{
	return rq->__sector;
}

static inline unsigned int blk_rq_sectors(const struct request *rq)
{
	return rq->__data_len >> SECTOR_SHIFT;
}

static inline int blk_rq_cur_bytes(const struct request *rq)
{
	struct bio *head = rq->bio;

	if (!head)
		return 0;
	/* without data pages (discard and the like) the bio size counts */
	return bio_has_data(head) ? bio_iovec(head).bv_len :
				    head->bi_iter.bi_size;
}

static inline unsigned int blk_rq_cur_sectors(const struct request *rq)
{
	return (unsigned int)blk_rq_cur_bytes(rq) >> SECTOR_SHIFT;
}

/* Size the request had when it was issued, for blk-stat. */
static inline unsigned int blk_rq_stats_sectors(const struct request *rq)
{
	return rq->stats_sectors;
}

/*
 * Bytes of data the driver transfers: differs from blk_rq_bytes() for
 * requests whose payload lives in ->special_vec (e.g. discard ranges).
 */
static inline unsigned int blk_rq_payload_bytes(struct request *rq)
{
	bool special = rq->rq_flags & RQF_SPECIAL_PAYLOAD;

	return special ? rq->special_vec.bv_len : blk_rq_bytes(rq);
}

/* The first bvec of a request, or its special payload. */
static inline struct bio_vec req_bvec(struct request *rq)
{
	struct bio *head = rq->bio;

	if (!(rq->rq_flags & RQF_SPECIAL_PAYLOAD))
		return mp_bvec_iter_bvec(head->bi_io_vec, head->bi_iter);
	return rq->special_vec;
}

static inline unsigned int blk_rq_count_bios(struct request *rq)
{
	struct bio *pos = rq->bio;
	unsigned int n;

	for (n = 0; pos; pos = pos->bi_next)
		n++;
	return n;
}

void blk_steal_bios(struct bio_list *list, struct request *rq);

bool blk_update_request(struct request *rq, blk_status_t error,
			unsigned int nr_bytes);
void blk_abort_request(struct request *rq);

/*
 * Segments the driver maps: a special payload counts as one even when
 * the request has no bio segments.
 */
static inline unsigned short blk_rq_nr_phys_segments(struct request *rq)
{
	return (rq->rq_flags & RQF_SPECIAL_PAYLOAD) ? 1 : rq->nr_phys_segments;
}

/* Discard ranges are counted in nr_phys_segments, but at least one. */
static inline unsigned short blk_rq_nr_discard_segments(struct request *rq)
{
	unsigned short ranges = rq->nr_phys_segments;

	return ranges ? ranges : 1;
}

void blk_dump_rq_flags(struct request *rq, char *msg);

/* Fill @sglist from @rq; returns the number of entries used. */
int __blk_rq_map_sg(struct request_queue *q, struct request *rq,
		    struct scatterlist *sglist, struct scatterlist **last_sg);

static inline int blk_rq_map_sg(struct request_queue *q, struct request *rq,
				struct scatterlist *sglist)
{
	struct scatterlist *tail = NULL;

	return __blk_rq_map_sg(q, rq, sglist, &tail);
}

/*
 * Zoned devices: a write to a sequential zone must hold that zone's write
 * lock (a bit in disk->seq_zones_wlock) from dispatch to completion, so
 * writes reach the zone in order.  Without CONFIG_BLK_DEV_ZONED nothing
 * is ever locked and everything may be dispatched.
 */
#ifndef CONFIG_BLK_DEV_ZONED
static inline bool blk_req_needs_zone_write_lock(struct request *rq)
{
	return false;
}

static inline bool blk_req_zone_is_write_locked(struct request *rq)
{
	return false;
}

static inline bool blk_req_can_dispatch_to_zone(struct request *rq)
{
	return true;
}

static inline void blk_req_zone_write_lock(struct request *rq) { }
static inline void blk_req_zone_write_unlock(struct request *rq) { }
#else
bool blk_req_needs_zone_write_lock(struct request *rq);
void __blk_req_zone_write_lock(struct request *rq);
void __blk_req_zone_write_unlock(struct request *rq);
bool blk_req_zone_write_trylock(struct request *rq);

static inline unsigned int blk_rq_zone_no(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	return disk_zone_no(disk, blk_rq_pos(rq));
}

static inline unsigned int blk_rq_zone_is_seq(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	return disk_zone_is_seq(disk, blk_rq_pos(rq));
}

static inline bool blk_req_zone_is_write_locked(struct request *rq)
{
	unsigned long *locks = rq->q->disk->seq_zones_wlock;

	return locks && test_bit(blk_rq_zone_no(rq), locks);
}

static inline bool blk_req_can_dispatch_to_zone(struct request *rq)
{
	return !blk_req_needs_zone_write_lock(rq) ||
		!blk_req_zone_is_write_locked(rq);
}

static inline void blk_req_zone_write_lock(struct request *rq)
{
	if (!blk_req_needs_zone_write_lock(rq))
		return;
	__blk_req_zone_write_lock(rq);
}

static inline void blk_req_zone_write_unlock(struct request *rq)
{
	if (!(rq->rq_flags & RQF_ZONE_WRITE_LOCKED))
		return;
	__blk_req_zone_write_unlock(rq);
}
#endif /* CONFIG_BLK_DEV_ZONED */

#endif /* BLK_MQ_H */
