// SPDX-License-Identifier: GPL-2.0
/* What the running kernel and process can do, each with a SKIP reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>
#include <zlib.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "core/compat.h"
#include "core/probe.h"

#define MAX_CONFIG	8192

struct config_ent {
	char name[64];
	char val;
};

static struct config_ent *config;
static int nconfig = -1;

bool zc_have_cap(cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return false;
	if (cap_get_flag(caps, cap, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

static const char *cap_label(cap_value_t cap)
{
	static char buf[32];
	char *name = cap_to_name(cap);
	size_t i;

	snprintf(buf, sizeof(buf), "%s", name ? name : "cap_unknown");
	cap_free(name);
	for (i = 0; buf[i]; i++)
		buf[i] = buf[i] >= 'a' && buf[i] <= 'z' ? buf[i] - 32 : buf[i];
	return buf;
}

int zc_require_caps(struct zc_why *w, const cap_value_t *caps, int n)
{
	char *reason = w->msg;
	size_t len = sizeof(w->msg);
	int i;

	for (i = 0; i < n; i++) {
		if (!zc_have_cap(caps[i])) {
			snprintf(reason, len, "needs %s", cap_label(caps[i]));
			return zc_why_as(w, ZC_CLASS_ENV);
		}
	}
	return 0;
}

int zc_require_bpf_caps(struct zc_why *w)
{
	char *reason = w->msg;
	size_t len = sizeof(w->msg);

	if (zc_have_cap(CAP_SYS_ADMIN) ||
	    (zc_have_cap(CAP_BPF) && zc_have_cap(CAP_PERFMON) &&
	     zc_have_cap(CAP_NET_ADMIN)))
		return 0;
	snprintf(reason, len, "needs CAP_BPF+CAP_PERFMON+CAP_NET_ADMIN or CAP_SYS_ADMIN");
	return zc_why_as(w, ZC_CLASS_ENV);
}

bool zc_uid_map_is_initial(const char *text)
{
	unsigned long inside, outside, count;
	int n = 0;

	if (sscanf(text, " %lu %lu %lu %n", &inside, &outside, &count, &n) != 3)
		return false;
	return !inside && !outside && count == 4294967295UL && !text[n];
}

int zc_userns_initial(void)
{
	char buf[512];
	ssize_t n;
	FILE *f;

	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return zc_uid_map_is_initial(buf);
}

bool zc_have_cap_init(cap_value_t cap)
{
	return zc_have_cap(cap) && zc_userns_initial() == 1;
}

/* "runs in a user namespace (uid_map 0 0 1)", or "" in the initial one. */
static const char *userns_desc(void)
{
	static char buf[96];
	unsigned long in = 0, out = 0, cnt = 0;
	FILE *f;

	if (zc_userns_initial() != 0)
		return "";
	f = fopen("/proc/self/uid_map", "re");
	if (f) {
		if (fscanf(f, "%lu %lu %lu", &in, &out, &cnt) != 3)
			in = out = cnt = 0;
		fclose(f);
	}
	snprintf(buf, sizeof(buf), "runs in a user namespace (uid_map %lu %lu %lu)",
		 in, out, cnt);
	return buf;
}

/* Seccomp mode from /proc/self/status: 2 is a filter. */
static int seccomp_mode(void)
{
	char line[128];
	int mode = -1;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode;
}

int zc_probe_bpf(struct zc_why *w)
{
	char *reason = w->msg;
	size_t len = sizeof(w->msg);
	/* r0 = 0 (TC_ACT_OK); exit */
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static int cached = 1;
	static char why[256];
	static enum zc_class cls;
	int fd, err;

	if (cached <= 0) {
		if (cached < 0)
			snprintf(reason, len, "%s", why);
		w->cls = cls;
		return cached;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "zc_probe", "GPL", insns,
			   2, NULL);
	if (fd >= 0) {
		close(fd);
		cached = 0;
		return 0;
	}
	err = errno;
	/* EPERM/EACCES: capabilities, a user namespace, an LSM, the sysctl */
	cls = err == EPERM || err == EACCES || err == ENOSYS ? ZC_CLASS_ENV :
	      ZC_CLASS_KERNEL;
	if (zc_userns_initial() == 0 && (err == EPERM || err == EACCES))
		snprintf(why, sizeof(why),
			 "%s: BPF needs CAP_BPF+CAP_NET_ADMIN or CAP_SYS_ADMIN in the initial user namespace (BPF_PROG_LOAD: %s)",
			 userns_desc(), strerror(err));
	else
		snprintf(why, sizeof(why), "BPF_PROG_LOAD of a 2-instruction tc program: %s",
			 strerror(err));
	cached = -1;
	snprintf(reason, len, "%s", why);
	return zc_why_as(w, cls);
}

int zc_probe_uring(struct zc_why *w)
{
	char *reason = w->msg;
	size_t len = sizeof(w->msg);
	struct io_uring_params p = { 0 };
	long dis = 0;
	int fd, err;

	fd = syscall(__NR_io_uring_setup, 2, &p);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = errno;
	/* the build's CONFIG_IO_URING, a sysctl, seccomp, an LSM */
	w->cls = ZC_CLASS_ENV;
	zc_sysctl_read("kernel.io_uring_disabled", &dis);
	if (err == ENOSYS)
		snprintf(reason, len, "kernel lacks io_uring (io_uring_setup: ENOSYS, CONFIG_IO_URING)");
	else if (dis)
		snprintf(reason, len, "io_uring disabled by kernel.io_uring_disabled=%ld (io_uring_setup: %s)",
			 dis, strerror(err));
	else if (err == EPERM && seccomp_mode() == 2)
		snprintf(reason, len, "io_uring_setup: %s under a seccomp filter (Seccomp: 2), kernel.io_uring_disabled=0",
			 strerror(err));
	else if (err == EPERM)
		snprintf(reason, len, "io_uring_setup: %s with kernel.io_uring_disabled=0 and no seccomp filter: an LSM?",
			 strerror(err));
	else
		snprintf(reason, len, "io_uring_setup: %s", strerror(err));
	/* an errno none of the above explains: the kernel's until known */
	if (err != ENOSYS && !dis && err != EPERM)
		w->cls = ZC_CLASS_KERNEL;
	return -1;
}

int zc_config_parse_line(const char *line, char *name, size_t nlen, char *val)
{
	const char *eq, *p;
	size_t l;

	while (*line == ' ' || *line == '\t')
		line++;
	eq = strchr(line, '=');
	if (!strncmp(line, "# CONFIG_", 9) && strstr(line, " is not set")) {
		p = line + 2;
		l = strcspn(p, " ");
		*val = 'n';
	} else if (!strncmp(line, "CONFIG_", 7) && eq) {
		p = line;
		l = eq - line;
		*val = eq[1] == 'y' ? 'y' : eq[1] == 'm' ? 'm' :
		       eq[1] == 'n' ? 'n' : 'v';
	} else {
		return -1;
	}
	if (!l || l >= nlen)
		return -1;
	memcpy(name, p, l);
	name[l] = '\0';
	return 0;
}

int zc_config_load(const char *path)
{
	gzFile f = gzopen(path, "r");
	char line[512];

	if (!f)
		return -errno ? -errno : -ENOENT;
	free(config);
	config = calloc(MAX_CONFIG, sizeof(*config));
	nconfig = 0;
	if (!config) {
		gzclose(f);
		return -ENOMEM;
	}
	/* gzopen reads plain files transparently, so /boot configs work too. */
	while (nconfig < MAX_CONFIG && gzgets(f, line, sizeof(line))) {
		struct config_ent *e = &config[nconfig];

		if (!zc_config_parse_line(line, e->name, sizeof(e->name), &e->val))
			nconfig++;
	}
	gzclose(f);
	return nconfig;
}

static void config_init(void)
{
	char path[300];

	if (nconfig >= 0)
		return;
	if (zc_config_load("/proc/config.gz") > 0)
		return;
	snprintf(path, sizeof(path), "/boot/config-%s", zc_kernel_release());
	if (zc_config_load(path) > 0)
		return;
	nconfig = 0;
}

char zc_config_get(const char *option)
{
	char full[80];
	int i;

	config_init();
	if (!nconfig)
		return 0;
	if (strncmp(option, "CONFIG_", 7)) {
		snprintf(full, sizeof(full), "CONFIG_%s", option);
		option = full;
	}
	for (i = 0; i < nconfig; i++)
		if (!strcmp(config[i].name, option))
			return config[i].val == 'v' ? 'y' : config[i].val;
	return 'n';
}

int zc_require_config(struct zc_why *w, const char *const *opts, int n)
{
	char *reason = w->msg;
	size_t len = sizeof(w->msg);
	int i;

	for (i = 0; i < n; i++) {
		char v = zc_config_get(opts[i]);

		if (v == 'n') {
			snprintf(reason, len, "%s%s not set",
				 strncmp(opts[i], "CONFIG_", 7) ? "CONFIG_" : "",
				 opts[i]);
			return zc_why_as(w, ZC_CLASS_ENV);
		}
	}
	return 0;
}

const char *zc_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}

static void sysctl_path(const char *name, char *path, size_t len)
{
	size_t i, off;

	off = snprintf(path, len, "/proc/sys/");
	for (i = 0; name[i] && off + 1 < len; i++, off++)
		path[off] = name[i] == '.' ? '/' : name[i];
	path[off] = '\0';
}

int zc_sysctl_read(const char *name, long *val)
{
	char path[256];
	FILE *f;
	int ret;

	sysctl_path(name, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ret = fscanf(f, "%ld", val) == 1 ? 0 : -EINVAL;
	fclose(f);
	return ret;
}

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static int err;

	if (!btf && !err) {
		btf = btf__load_vmlinux_btf();
		if (!btf)
			err = errno ? -errno : -ENOENT;
	}
	return btf;
}

int zc_btf_has_member(const char *st, const char *member)
{
	struct btf *btf = vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, st, BTF_KIND_STRUCT);
	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return 1;
	return 0;
}

int zc_btf_has_type(const char *name)
{
	struct btf *btf = vmlinux_btf();

	if (!btf)
		return -ENOENT;
	return btf__find_by_name(btf, name) >= 0;
}

int zc_kernel_has_function(const char *name)
{
	int has = zc_btf_has_type(name);
	char line[512], sym[256], mod[64];
	FILE *f;

	if (has >= 0)
		return has;
	/* Without BTF (Debian's s390x 6.1): names show even under kptr_restrict. */
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	has = 0;
	while (!has && fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		if (sscanf(line, "%*s %*c %255s %63s", sym, mod) >= 1 && !mod[0])
			has = !strcmp(sym, name);
	}
	fclose(f);
	return has;
}
