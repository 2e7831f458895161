/* flowspec search index, shard 4: [href, title, context, text, lang] per entry. */
window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([

]);
