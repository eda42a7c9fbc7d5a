package io.kafkapixy.security;

import java.util.ArrayList;
import java.util.function.ObjIntConsumer;
import java.util.function.Supplier;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.MappingStartEvent;
import org.yaml.snakeyaml.events.SequenceStartEvent;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * A YAML document as SnakeYAML's safe loader reads it, except that the mappings listed under one key of the top-level
 * mapping are each composed, constructed and handed over as they are read, and left out of the document. A large
 * file then never has its whole node tree and values in the heap at once, but one entry at a time: parsed whole, a
 * clients file of 1,000 clients of ten rules (1 MB) needed a 56 MiB heap, about 50 times its size
 * (docs/operations.md#security). Anchors, aliases and merge keys work as in the safe loader, across entries too.
 */
final class EntryByEntryYaml {

    private EntryByEntryYaml() {
    }

    /**
     * @param key   the top-level key whose list is read entry by entry
     * @param entry given each entry (its value as the safe loader builds it, and its index) as it is read; an entry
     *              that is not a mapping is refused with IllegalArgumentException ({@code key[3]: a mapping is needed})
     * @return the document as the safe loader builds it, the list under {@code key} empty; null for an empty document
     * @throws org.yaml.snakeyaml.error.YAMLException not YAML
     */
    static Object load(String yaml, LoaderOptions options, String key, ObjIntConsumer<Object> entry) {
        EntryConstructor constructor = new EntryConstructor(options);
        constructor.setComposer(new EntryComposer(new ParserImpl(new StreamReader(yaml), options), options, key,
                constructor, entry));
        return constructor.getSingleData(Object.class);
    }

    private static final class EntryConstructor extends SafeConstructor {

        EntryConstructor(LoaderOptions options) {
            super(options);
            // what org.yaml.snakeyaml.Yaml hands its constructor from the options
            setAllowDuplicateKeys(options.isAllowDuplicateKeys());
            setWarnOnDuplicateKeys(options.isWarnOnDuplicateKeys());
            setWrappedToRootException(options.isWrappedToRootException());
        }

        /** One entry as a document of its own: what it built is forgotten once it is handed over. */
        Object construct(Node node) {
            return constructDocument(node);
        }
    }

    private static final class EntryComposer extends Composer {

        private final String key;
        private final EntryConstructor constructor;
        private final ObjIntConsumer<Object> entry;
        /** How many mappings and sequences are being composed: 1 within the document's top-level mapping. */
        private int depth;
        /** The key just composed is {@link #key} in the top-level mapping. */
        private boolean atKey;

        EntryComposer(ParserImpl parser, LoaderOptions options, String key, EntryConstructor constructor,
                      ObjIntConsumer<Object> entry) {
            super(parser, new Resolver(), options);
            this.key = key;
            this.constructor = constructor;
            this.entry = entry;
        }

        @Override
        protected Node composeMappingNode(String anchor) {
            return nested(() -> super.composeMappingNode(anchor));
        }

        @Override
        protected Node composeSequenceNode(String anchor) {
            return nested(() -> super.composeSequenceNode(anchor));
        }

        private Node nested(Supplier<Node> compose) {
            depth++;
            try {
                return compose.get();
            } finally {
                depth--;
            }
        }

        @Override
        protected Node composeKeyNode(MappingNode node) {
            Node composed = super.composeKeyNode(node);
            atKey = depth == 1 && composed instanceof ScalarNode s && key.equals(s.getValue());
            return composed;
        }

        @Override
        protected Node composeValueNode(MappingNode node) {
            if (!atKey || !parser.checkEvent(Event.ID.SequenceStart)) {
                return super.composeValueNode(node);
            }
            atKey = false;
            SequenceStartEvent start = (SequenceStartEvent) parser.getEvent();
            for (int i = 0; !parser.checkEvent(Event.ID.SequenceEnd); i++) {
                if (!parser.checkEvent(Event.ID.MappingStart)) {
                    throw new IllegalArgumentException(key + "[" + i + "]: a mapping is needed");
                }
                Node item = composeMappingNode(((MappingStartEvent) parser.peekEvent()).getAnchor());
                entry.accept(constructor.construct(item), i);
            }
            Event end = parser.getEvent();
            return new SequenceNode(Tag.SEQ, true, new ArrayList<>(), start.getStartMark(), end.getEndMark(),
                    start.getFlowStyle());
        }
    }
}
