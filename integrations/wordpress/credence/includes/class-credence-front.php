<?php
/**
 * What readers see: the attribution embed (placed automatically, as a block, or by shortcode) in the site's
 * language, the record's JSON-LD in the head, and the page's notices. Each page view reads one cached view of the
 * record; when Credence cannot be reached the embed falls back to its own script, and the page renders regardless.
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

final class Credence_Front {
	const TTL = 300;
	/** The embed's styles (src/surfaces/embed/renderer.ts STYLES); anything else is shown as full. */
	const STYLES = array( 'full', 'compact', 'badge' );

	public static function init() {
		add_filter( 'the_content', array( __CLASS__, 'filter_content' ) );
		add_action( 'wp_head', array( __CLASS__, 'head' ) );
		add_shortcode( 'credence', array( __CLASS__, 'shortcode' ) );
		add_action( 'init', array( __CLASS__, 'register_block' ) );
	}

	public static function register_block() {
		wp_register_script( 'credence-embed-block', plugins_url( 'blocks/embed/index.js', CREDENCE_FILE ), array( 'wp-blocks', 'wp-element', 'wp-i18n' ), CREDENCE_VERSION, true );
		wp_set_script_translations( 'credence-embed-block', 'credence', CREDENCE_DIR . 'languages' );
		register_block_type(
			CREDENCE_DIR . 'blocks/embed',
			array(
				'editor_script'   => 'credence-embed-block',
				'render_callback' => array( __CLASS__, 'render_block' ),
			)
		);
	}

	public static function render_block( $attributes = array() ) {
		$post = get_post();
		return $post ? self::embed_html( $post, isset( $attributes['style'] ) ? (string) $attributes['style'] : 'full' ) : '';
	}

	/** A style the embed knows, or full. */
	public static function style( $style ) {
		return in_array( $style, self::STYLES, true ) ? $style : 'full';
	}

	public static function shortcode( $atts = array() ) {
		$atts = shortcode_atts( array( 'style' => 'full' ), $atts, 'credence' );
		$post = get_post();
		return $post ? self::embed_html( $post, $atts['style'] ) : '';
	}

	private static function takes_part( $post ) {
		return $post && 'publish' === $post->post_status && in_array( $post->post_type, Credence_Registration::post_types(), true );
	}

	public static function filter_content( $content ) {
		$post = get_post();
		if ( ! is_singular() || ! in_the_loop() || ! is_main_query() || ! self::takes_part( $post ) ) {
			return $content;
		}
		$notices = self::notices_html( $post );
		$embed   = '';
		if ( get_option( 'credence_auto_embed', '1' ) && ! has_shortcode( $post->post_content, 'credence' ) && ! has_block( 'credence/embed', $post ) ) {
			$embed = self::embed_html( $post, 'full' );
		}
		return $notices . $content . $embed;
	}

	/** The site's language as the embed takes it: en, de, fr or es (the service falls back to English). */
	public static function lang() {
		return strtolower( substr( (string) determine_locale(), 0, 2 ) );
	}

	/** The record's view for a post: the embed's html, the JSON-LD, the notices; cached, and empty when unreachable. */
	public static function view( $post ) {
		$key    = 'credence_view_' . $post->ID . '_' . self::lang();
		$cached = get_transient( $key );
		if ( is_array( $cached ) ) {
			return $cached;
		}
		$client = Credence_Client::from_options();
		$url    = get_permalink( $post );
		$view   = array( 'ok' => false, 'html' => '', 'jsonld' => null, 'notices' => array(), 'standing' => null );
		$embed  = $client->request( 'GET', '/embed/by-url', null, array( 'url' => $url, 'lang' => self::lang() ), 3 );
		if ( ! is_wp_error( $embed ) ) {
			$view['ok']   = true;
			$view['html'] = (string) ( $embed['html'] ?? '' );
			$lookup       = $client->request( 'GET', '/pages/lookup', null, array( 'url' => $url ), 3 );
			if ( ! is_wp_error( $lookup ) && ! empty( $lookup['data']['has_record'] ) ) {
				$view['notices']  = (array) ( $lookup['data']['notices'] ?? array() );
				$view['standing'] = $lookup['data']['standing'] ?? null;
				$ld               = $client->request( 'GET', '/pages/lookup', null, array( 'url' => $url, 'format' => 'jsonld' ), 3 );
				$view['jsonld']   = is_wp_error( $ld ) ? null : $ld;
			}
		}
		// A failure is remembered for a minute only, so a slow service costs page views one wait, not every time.
		set_transient( $key, $view, $view['ok'] ? self::TTL : 60 );
		return $view;
	}

	/**
	 * The embed's html in a style other than full (full comes with the view): cached per post, language and style,
	 * since each is a different block; null when Credence could not be reached, for a minute.
	 */
	public static function styled_html( $post, $style ) {
		$key    = 'credence_embed_' . $post->ID . '_' . self::lang() . '_' . $style;
		$cached = get_transient( $key );
		if ( is_array( $cached ) ) {
			return $cached['ok'] ? $cached['html'] : null;
		}
		$embed = Credence_Client::from_options()->request( 'GET', '/embed/by-url', null, array( 'url' => get_permalink( $post ), 'lang' => self::lang(), 'style' => $style ), 3 );
		$ok    = ! is_wp_error( $embed );
		set_transient( $key, array( 'ok' => $ok, 'html' => $ok ? (string) ( $embed['html'] ?? '' ) : '' ), $ok ? self::TTL : 60 );
		return $ok ? (string) ( $embed['html'] ?? '' ) : null;
	}

	public static function forget( $post_id ) {
		foreach ( array_unique( array( 'en', 'de', 'fr', 'es', self::lang() ) ) as $lang ) {
			delete_transient( 'credence_view_' . $post_id . '_' . $lang );
			foreach ( self::STYLES as $style ) {
				delete_transient( 'credence_embed_' . $post_id . '_' . $lang . '_' . $style );
			}
		}
	}

	/**
	 * What the embed's html may hold: exactly the tags and attributes the service's renderer
	 * (src/surfaces/embed/renderer.ts) writes, its stylesheet's <link> and its <time> elements included, which
	 * wp_kses_post would strip; anything else (a script, an event handler, a style attribute) still goes.
	 */
	public static function allowed_html() {
		$plain = array( 'class' => true, 'lang' => true, 'role' => true, 'aria-label' => true, 'aria-hidden' => true, 'title' => true );
		return array(
			'link'    => array(
				'rel'  => array( 'values' => array( 'stylesheet' ) ),
				'href' => true,
			),
			'section' => $plain,
			'p'       => $plain,
			'a'       => $plain + array( 'href' => true ),
			'span'    => $plain,
			'ul'      => $plain,
			'li'      => $plain,
			'h2'      => $plain,
			'strong'  => array(),
			'del'     => array(),
			'ins'     => array(),
			'time'    => array( 'datetime' => true ),
		);
	}

	public static function embed_html( $post, $style = 'full' ) {
		if ( ! self::takes_part( $post ) ) {
			return '';
		}
		$style = self::style( $style );
		$view  = self::view( $post );
		$html  = $view['ok'] ? ( 'full' === $style ? $view['html'] : self::styled_html( $post, $style ) ) : null;
		if ( null !== $html ) {
			// The service's own renderer made this block and escaped what it holds; its tags are kept as sent.
			return '' === $html ? '' : '<div class="credence-embed">' . wp_kses( $html, self::allowed_html() ) . '</div>';
		}
		$base = Credence_Client::from_options()->base();
		if ( '' === $base ) {
			return '';
		}
		// The embed's own fallback: its script fetches the block from the reader's browser when our server could not.
		$src = add_query_arg(
			array(
				'url'    => rawurlencode( get_permalink( $post ) ),
				'format' => 'js',
				'lang'   => self::lang(),
				'style'  => rawurlencode( $style ),
			),
			$base . '/api/v1/embed/by-url'
		);
		return '<div class="credence-embed"><script async src="' . esc_url( $src ) . '"></script></div>'; // phpcs:ignore WordPress.WP.EnqueuedResources.NonEnqueuedScript
	}

	public static function notices_html( $post ) {
		$view = self::view( $post );
		if ( empty( $view['notices'] ) ) {
			return '';
		}
		$labels = array(
			'retraction'            => __( 'Retraction', 'credence' ),
			'partial_retraction'    => __( 'Partial retraction', 'credence' ),
			'expression_of_concern' => __( 'Expression of concern', 'credence' ),
			'withdrawal'            => __( 'Withdrawal', 'credence' ),
			'removal'               => __( 'Removal', 'credence' ),
			'clarification'         => __( 'Clarification', 'credence' ),
			'addendum'              => __( 'Addendum', 'credence' ),
			'reinstatement'         => __( 'Reinstatement', 'credence' ),
		);
		$out = '<aside class="credence-notices" role="note">';
		foreach ( $view['notices'] as $notice ) {
			$type = (string) ( $notice['type'] ?? '' );
			$out .= '<p class="credence-notice credence-notice-' . esc_attr( $type ) . '"><strong>' . esc_html( $labels[ $type ] ?? $type ) . '</strong> ';
			$out .= '<time datetime="' . esc_attr( $notice['date'] ?? '' ) . '">' . esc_html( mysql2date( get_option( 'date_format' ), (string) ( $notice['date'] ?? '' ) ) ) . '</time>: ';
			$out .= esc_html( (string) ( $notice['reason'] ?? '' ) );
			if ( ! empty( $notice['url'] ) ) {
				$out .= ' <a href="' . esc_url( $notice['url'] ) . '">' . esc_html__( 'Read the notice', 'credence' ) . '</a>';
			}
			$out .= '</p>';
		}
		return $out . '</aside>';
	}

	public static function head() {
		$post = get_post();
		if ( ! is_singular() || ! self::takes_part( $post ) ) {
			return;
		}
		$view = self::view( $post );
		if ( ! empty( $view['jsonld'] ) ) {
			// wp_json_encode escapes '<' and '>' (JSON_HEX_TAG), so nothing in the record can close the script element.
			echo '<script type="application/ld+json">' . wp_json_encode( $view['jsonld'], JSON_HEX_TAG | JSON_HEX_AMP | JSON_UNESCAPED_SLASHES ) . "</script>\n";
		}
	}
}
