/* ros_package.c: the index of ROS packages by their package.xml names (see ros_package.h). */
#include "ros_package.h"

#include "readfile.h"


#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

typedef struct ros_package {
  char *name, *dir;
} ros_package;

struct hg_ros_packages {
  ros_package *pkg;
  int n, cap;
  int dirs; /* folders crawled so far, bounded by HG_ROS_CRAWL_MAX_DIRS */
};

/* 1 when dir/file exists */
static int has_file(const char *dir, const char *file) {
  char path[4096];
  struct stat st;
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) return 0;
  return stat(path, &st) == 0;
}

char *hg_ros_package_name(const char *dir) {
  char path[4096];
  char *name = NULL, *bytes;
  size_t len;
  hg_error err;
  if ((size_t)snprintf(path, sizeof path, "%s/package.xml", dir) >= sizeof path) return NULL;
  /* a manifest is a few kilobytes: anything else (not a regular file, over 1 MiB) is not one and
   * is not read; read into memory first, so that the bytes parsed are the bytes checked */
  if (!(bytes = hg_file_read(path, (size_t)1 << 20, &len, &err))) return NULL;
  xmlDoc *doc = xmlReadMemory(bytes, (int)len, path, NULL,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  free(bytes);
  const xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
  if (root && xmlStrEqual(root->name, BAD_CAST "package"))
    for (const xmlNode *c = root->children; c && !name; c = c->next) {
      if (c->type != XML_ELEMENT_NODE || !xmlStrEqual(c->name, BAD_CAST "name")) continue;
      xmlChar *text = xmlNodeGetContent(c);
      const char *s = (const char *)text, *e;
      /* the name without the white space around it */
      while (s && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++;
      e = s ? s + strlen(s) : NULL;
      while (e && e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
      if (e && e > s && (name = malloc((size_t)(e - s) + 1))) {
        memcpy(name, s, (size_t)(e - s));
        name[e - s] = 0;
      }
      xmlFree(text);
    }
  xmlFreeDoc(doc);
  return name;
}

/* adds (name, dir); -1 when out of memory */
static int add(hg_ros_packages *ix, char *name, const char *dir) {
  if (ix->n == ix->cap) {
    int cap = ix->cap ? 2 * ix->cap : 16;
    ros_package *p = realloc(ix->pkg, (size_t)cap * sizeof *p);
    if (!p) return -1;
    ix->pkg = p;
    ix->cap = cap;
  }
  ix->pkg[ix->n].name = name;
  if (!(ix->pkg[ix->n].dir = strdup(dir))) return -1;
  ix->n++;
  return 0;
}

/* qsort order of two folder paths */
static int path_order(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the packages at or below dir; -1 when out of memory */
static int crawl(hg_ros_packages *ix, const char *dir, int depth) {
  if (ix->dirs++ >= HG_ROS_CRAWL_MAX_DIRS) return 0;
  if (has_file(dir, "CATKIN_IGNORE") || has_file(dir, "COLCON_IGNORE") ||
      has_file(dir, "AMENT_IGNORE"))
    return 0;
  char *name = hg_ros_package_name(dir);
  if (name) {
    if (add(ix, name, dir)) return free(name), -1;
    return 0; /* no package inside a package */
  }
  if (depth >= HG_ROS_CRAWL_DEPTH) return 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  /* entries sorted, so that two packages of one name are found in the same order everywhere */
  char **sub = NULL;
  int nsub = 0, cap = 0, rc = 0;
  for (struct dirent *e; (e = readdir(d));) {
    char path[4096];
    struct stat st;
    if (e->d_name[0] == '.') continue;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (nsub == cap) {
      char **g = realloc(sub, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *g);
      if (!g) {
        rc = -1;
        break;
      }
      sub = g;
    }
    if (!(sub[nsub] = strdup(path))) {
      rc = -1;
      break;
    }
    nsub++;
  }
  closedir(d);
  if (nsub) qsort(sub, (size_t)nsub, sizeof *sub, path_order);
  for (int k = 0; k < nsub && !rc; k++) rc = crawl(ix, sub[k], depth + 1);
  for (int k = 0; k < nsub; k++) free(sub[k]);
  free(sub);
  return rc;
}

hg_ros_packages *hg_ros_packages_new(void) { return calloc(1, sizeof(hg_ros_packages)); }

int hg_ros_packages_crawl(hg_ros_packages *ix, const char *list) {
  while (list && *list) {
    const char *colon = strchr(list, ':');
    size_t len = colon ? (size_t)(colon - list) : strlen(list);
    char dir[4096];
    if (len && len < sizeof dir) {
      memcpy(dir, list, len);
      dir[len] = 0;
      while (len > 1 && dir[len - 1] == '/') dir[--len] = 0;
      if (crawl(ix, dir, 0)) return -1;
    }
    list = colon ? colon + 1 : NULL;
  }
  return 0;
}

int hg_ros_packages_add(hg_ros_packages *ix, const char *dir) {
  char *name = hg_ros_package_name(dir);
  if (name && add(ix, name, dir)) return free(name), -1;
  return 0;
}

const char *hg_ros_packages_find(const hg_ros_packages *ix, const char *name, size_t len) {
  for (int k = 0; ix && k < ix->n; k++)
    if (strlen(ix->pkg[k].name) == len && strncmp(ix->pkg[k].name, name, len) == 0)
      return ix->pkg[k].dir;
  return NULL;
}

void hg_ros_packages_free(hg_ros_packages *ix) {
  if (!ix) return;
  for (int k = 0; k < ix->n; k++) free(ix->pkg[k].name), free(ix->pkg[k].dir);
  free(ix->pkg);
  free(ix);
}
