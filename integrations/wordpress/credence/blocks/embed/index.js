// The Credence record block: dynamic, rendered in PHP (Credence_Front::render_block); no build step.
/* global window */
( function ( blocks, element, i18n ) {
	var el = element.createElement;
	var __ = i18n.__;
	blocks.registerBlockType( 'credence/embed', {
		edit: function () {
			return el( 'p', { className: 'credence-embed-placeholder' }, __( 'The Credence record of this post appears here once it has accepted work.', 'credence' ) );
		},
		save: function () {
			return null;
		},
	} );
} )( window.wp.blocks, window.wp.element, window.wp.i18n );
