/* flowspec search index, shard 6: [href, title, context, text, lang] per entry. */
window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([

]);
