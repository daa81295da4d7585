/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generative model of job streams, learnt from job records
 * (Documentation/tracegen.rst is the description; fnblk-tracegen uses it):
 *
 *  - arrivals come in batches (jobs created within batch_window_s of the
 *    previous one belong to its batch); batches arrive as a Poisson
 *    process whose rate follows the hour of day (24 weights, each hour
 *    given a tenth of a batch more than it had, so an hour never seen is
 *    not impossible); a batch's size
 *    is drawn from the sizes seen;
 *  - every job of a batch belongs to the batch's category, drawn by the
 *    share of batches each category had;
 *  - a job's features, visible (input and output bytes and files, cores,
 *    stage-in mode) and hidden (CPU time, hence efficiency), are drawn
 *    together from one training job of its category, so their joint
 *    behaviour is kept, with the continuous ones jittered in log space by
 *    a kernel of the category's own spread (a smoothed bootstrap), so the
 *    synthetic trace does not only repeat the training values.
 *
 * Deterministic for a seed. With few records per category the model can
 * only reproduce what it saw, smoothed; it cannot learn trends, seasons
 * beyond the day, or dependence between successive batches.
 */
#ifndef FNBLK_TRACEMODEL_H
#define FNBLK_TRACEMODEL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "jobrec.h"

/* What a job is, as the model keeps it. */
struct tm_job {
	double cpu_s;
	double in_bytes, out_bytes;
	uint32_t cores, in_files, out_files;
	uint8_t stagein;		/* enum jobrec_stagein */
	uint8_t failed;
};

/* Continuous features, jittered in log space. */
enum tm_feature {
	TM_CPU,
	TM_IN_BYTES,
	TM_OUT_BYTES,
	TM_NR_FEATURES,
};

struct tm_category {
	char name[64];
	double share;			/* of batches */
	struct tm_job *jobs;
	size_t nr_jobs;
	double bandwidth[TM_NR_FEATURES];	/* kernel sd in log space */
};

struct trace_model {
	double batch_window_s;
	double span_s;			/* first to last training arrival */
	double batch_rate;		/* batches per second, mean over the day */
	double hour_weight[24];		/* mean 1 */
	uint32_t *batch_sizes;		/* every batch's size, as seen */
	size_t nr_batches;
	struct tm_category *categories;
	size_t nr_categories;
	size_t nr_jobs;			/* training jobs */
};

void trace_model_init(struct trace_model *m);
void trace_model_free(struct trace_model *m);

/* Learn m from the records of t (sorted by arrival here). 0, or -1 with err. */
int trace_model_fit(struct trace_model *m, struct jobrecs *t,
		    double batch_window_s, char *err, size_t errlen);

/*
 * A synthetic trace of jobs records into out (appended): arrivals from
 * start_s (seconds since the epoch), sites S0..S{sites-1} (uniform), the
 * arrival rate multiplied by scale. 0, or -1 with err.
 */
int trace_model_generate(const struct trace_model *m, size_t jobs,
			 unsigned int sites, double scale, int64_t start_s,
			 uint64_t seed, struct jobrecs *out, char *err,
			 size_t errlen);

/* The model as JSON and back (the file fnblk-tracegen fit writes). */
json_t *trace_model_to_json(const struct trace_model *m);
int trace_model_from_json(struct trace_model *m, const json_t *j, char *err,
			  size_t errlen);

#endif /* FNBLK_TRACEMODEL_H */
