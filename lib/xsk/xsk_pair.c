// SPDX-License-Identifier: GPL-2.0
/* A real device pair's counters and what they say of lost frames. */
#include "net/netns.h"
#include "xsk/xsk_pair.h"

#define ULL(v)	((unsigned long long)(v))

struct counts_arg {
	int ifindex;
	struct zc_link_counts *c;
};

static int counts_here(void *arg)
{
	struct counts_arg *a = arg;

	return zc_link_counts(a->ifindex, a->c);
}

int zc_xsk_pair_counts(const struct zc_topo *t, struct zc_link_counts c[2])
{
	struct counts_arg a = { t->a.ifindex, &c[0] }, b = { t->b.ifindex, &c[1] };
	int err = zc_netns_run(t->a.nsfd, counts_here, &a);

	return err ? err : zc_netns_run(t->b.nsfd, counts_here, &b);
}

bool zc_xsk_pair_lost(const struct zc_xsk_pair_delta *p, const char *tx_dev,
		      const char *rx_dev, struct zc_why *why)
{
	zc_why_clear(why);
	if (!p->sent && p->refused) {
		zc_why_set(why, "device pair sent nothing: %s refused all %llu frames (its transmit queue stayed stopped), %s's driver took up %llu",
			   tx_dev, ULL(p->refused), rx_dev, ULL(p->rx));
		return true;
	}
	/* Taken up by the driver, a frame is the path's: whatever came after. */
	if (p->rx >= p->sent)
		return false;
	zc_why_set(why, "device pair lost frames before XDP: generator sent %llu, %s transmitted %llu (tx_dropped %llu), %s's driver took up %llu (rx_dropped %llu, missed %llu)",
		   ULL(p->sent), tx_dev, ULL(p->tx), ULL(p->tx_dropped), rx_dev,
		   ULL(p->rx), ULL(p->rx_dropped), ULL(p->rx_missed));
	return true;
}

bool zc_xsk_pair_held(uint64_t dev_tx, uint64_t sent, uint64_t done,
		      const char *dev, struct zc_why *why)
{
	zc_why_clear(why);
	if (done >= sent || dev_tx >= sent)
		return false;
	zc_why_set(why, "device pair stopped transmitting: %s counted %llu of the socket's %llu frames transmitted, %llu never came back from its transmit queue",
		   dev, ULL(dev_tx), ULL(sent), ULL(sent - done));
	return true;
}
