/* <net/page_pool/helpers.h> (v6.6; <net/page_pool.h> before) */
#include <net/page_pool/helpers.h>
struct page *probe(struct page_pool *pool);
struct page *probe(struct page_pool *pool)
{
	return page_pool_dev_alloc_pages(pool);
}
