/* ros_package.h: ROS packages found by the name their package.xml gives, as rospack and ament
 * find them, for the package://NAME/... URLs of URDF meshes.
 *
 * A package is a folder holding a package.xml; its name is that file's <package><name>, not the
 * folder's name (a checkout of example-robot-data may sit in a folder called anything). The
 * index is built by crawling folders the way rospack does: depth first, hidden folders and
 * folders holding a CATKIN_IGNORE or COLCON_IGNORE file skipped, no descent below a package. */
#ifndef HG_ROS_PACKAGE_H
#define HG_ROS_PACKAGE_H

#include <stddef.h>

/* folders crawled at most this deep below each listed folder, and at most this many in all: a
 * ROS_PACKAGE_PATH naming / or a home folder ends the crawl early instead of reading the disk */
#define HG_ROS_CRAWL_DEPTH 8
#define HG_ROS_CRAWL_MAX_DIRS 20000

typedef struct hg_ros_packages hg_ros_packages;

/* An empty index; NULL when out of memory. Packages are found in the order they were added. */
hg_ros_packages *hg_ros_packages_new(void);

/* Adds the packages at or below the folders of a ':'-separated list (NULL or "": none). -1 when
 * out of memory. */
int hg_ros_packages_crawl(hg_ros_packages *ix, const char *list);

/* Adds dir itself when it holds a package.xml with a name (no crawl). -1 when out of memory. */
int hg_ros_packages_add(hg_ros_packages *ix, const char *dir);

/* The folder of the first package (in the list's order) named name[0..len), or NULL. The string
 * belongs to the index. */
const char *hg_ros_packages_find(const hg_ros_packages *ix, const char *name, size_t len);

/* The name in dir/package.xml (malloc'd, the caller frees it), or NULL when dir holds no
 * readable package.xml with a <name>. */
char *hg_ros_package_name(const char *dir);

void hg_ros_packages_free(hg_ros_packages *ix);

#endif
