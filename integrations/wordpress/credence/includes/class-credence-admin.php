<?php
/**
 * The editors' side: settings (tested with whoami on save), Credence usernames on profiles, the bulk import, and the
 * post's meta box (authors' claims, requests for work, submitted work with its evidence and a decision).
 * Every action checks a nonce and a capability.
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

final class Credence_Admin {
	public static function init() {
		add_action( 'admin_menu', array( __CLASS__, 'menus' ) );
		add_action( 'admin_init', array( __CLASS__, 'settings' ) );
		add_action( 'show_user_profile', array( __CLASS__, 'profile_field' ) );
		add_action( 'edit_user_profile', array( __CLASS__, 'profile_field' ) );
		add_action( 'personal_options_update', array( __CLASS__, 'save_profile' ) );
		add_action( 'edit_user_profile_update', array( __CLASS__, 'save_profile' ) );
		add_action( 'add_meta_boxes', array( __CLASS__, 'meta_boxes' ) );
		add_action( 'admin_post_credence_request', array( __CLASS__, 'open_request' ) );
		add_action( 'admin_post_credence_decide', array( __CLASS__, 'decide' ) );
		add_action( 'wp_ajax_credence_import', array( __CLASS__, 'import_step' ) );
		add_action( 'admin_notices', array( __CLASS__, 'notices' ) );
	}

	public static function menus() {
		add_options_page( __( 'Credence', 'credence' ), __( 'Credence', 'credence' ), 'manage_options', 'credence', array( __CLASS__, 'settings_page' ) );
		add_submenu_page( 'edit.php', __( 'Submitted work', 'credence' ), __( 'Credence work', 'credence' ), 'edit_posts', 'credence-work', array( __CLASS__, 'work_page' ) );
		add_management_page( __( 'Credence import', 'credence' ), __( 'Credence import', 'credence' ), 'manage_options', 'credence-import', array( __CLASS__, 'import_page' ) );
	}

	public static function settings() {
		$group = 'credence';
		register_setting( $group, 'credence_service_url', array( 'type' => 'string', 'sanitize_callback' => 'esc_url_raw' ) );
		register_setting( $group, 'credence_api_key', array( 'type' => 'string', 'sanitize_callback' => array( __CLASS__, 'sanitize_key' ) ) );
		register_setting( $group, 'credence_webhook_secret', array( 'type' => 'string', 'sanitize_callback' => 'sanitize_text_field' ) );
		register_setting( $group, 'credence_post_types', array( 'type' => 'array', 'sanitize_callback' => array( __CLASS__, 'sanitize_types' ) ) );
		register_setting( $group, 'credence_topic_map', array( 'type' => 'array', 'sanitize_callback' => array( __CLASS__, 'sanitize_topics' ) ) );
		register_setting( $group, 'credence_auto_embed', array( 'type' => 'string', 'sanitize_callback' => 'sanitize_key' ) );
	}

	/**
	 * The settings form's key, tested with whoami on every save (changed or not), as WordPress's own settings refuse
	 * a wrong admin email: a key Credence refuses is not saved (the one before it stays) and the form says why with
	 * add_settings_error. A key that could not be tested (Credence unreachable) is saved, with a warning; the status
	 * under the form's title says it is untested until a save reaches Credence.
	 */
	public static function sanitize_key( $value ) {
		$key = preg_replace( '/[^A-Za-z0-9_]/', '', (string) $value );
		// options.php saves the address first; read the form's own, so the key is tested where it will be used.
		$url = isset( $_POST['credence_service_url'] ) ? esc_url_raw( wp_unslash( $_POST['credence_service_url'] ) ) : get_option( 'credence_service_url', '' ); // phpcs:ignore WordPress.Security.NonceVerification.Missing -- options.php checked the settings nonce.
		if ( '' === $key || '' === $url ) {
			return $key;
		}
		$res = self::whoami( new Credence_Client( $url, $key ) );
		if ( is_wp_error( $res ) && empty( $res->get_error_data()['retry'] ) ) {
			self::settings_error( 'credence_key_refused', $res->get_error_message() . ' ' . __( 'The key was not saved.', 'credence' ), 'error' );
			return (string) get_option( 'credence_api_key', '' );
		}
		if ( is_wp_error( $res ) ) {
			self::settings_error( 'credence_key_untested', $res->get_error_message() . ' ' . __( 'The key was saved without being tested.', 'credence' ), 'warning' );
		}
		self::record_connection( $res );
		return $key;
	}

	/** One settings error per code: WordPress runs a new option's sanitize callback twice. */
	private static function settings_error( $code, $message, $type ) {
		foreach ( get_settings_errors( 'credence_api_key' ) as $error ) {
			if ( $error['code'] === $code ) {
				return;
			}
		}
		add_settings_error( 'credence_api_key', $code, $message, $type );
	}

	/**
	 * GET /whoami for a client, asked once per address and key in a request (the sanitize callback, then the
	 * update_option hook, would ask twice). A key that is not a publisher key is an error with no retry.
	 *
	 * @return array|WP_Error
	 */
	public static function whoami( Credence_Client $client ) {
		static $answers = array();
		$id = $client->base() . '|' . $client->key_hash();
		if ( ! isset( $answers[ $id ] ) ) {
			$res = $client->request( 'GET', '/whoami' );
			if ( ! is_wp_error( $res ) && empty( $res['data']['publisher'] ) ) {
				$res = new WP_Error( 'credence_not_publisher', __( 'This key is not a publisher key: create one for your publication in Credence.', 'credence' ), array( 'retry' => false ) );
			}
			$answers[ $id ] = $res;
		}
		return $answers[ $id ];
	}

	public static function sanitize_types( $value ) {
		return array_values( array_intersect( array_map( 'sanitize_key', (array) $value ), get_post_types( array( 'public' => true ) ) ) );
	}

	/** "category:health = health" lines into a map; a topic is lower-case letters, digits and hyphens. */
	public static function sanitize_topics( $value ) {
		if ( is_array( $value ) ) {
			return $value;
		}
		$map = array();
		foreach ( preg_split( '/\R/', (string) $value ) as $line ) {
			if ( preg_match( '/^\s*((?:category|post_tag):[a-z0-9_-]+)\s*=\s*([a-z0-9-]{1,100})\s*$/', strtolower( $line ), $m ) ) {
				$map[ $m[1] ] = $m[2];
			}
		}
		return $map;
	}

	/** On saving a key, ask the service who it is, and say in words what it answered. */
	public static function test_key() {
		self::record_connection( self::whoami( Credence_Client::from_options() ) );
	}

	/** Keep whoami's answer in words: the settings page shows it until a save changes it. */
	private static function record_connection( $res ) {
		if ( is_wp_error( $res ) ) {
			update_option( 'credence_connection', array( 'ok' => false, 'message' => $res->get_error_message() ), false );
		} else {
			// Author links are asked under the publication's slug.
			update_option( 'credence_publisher', (string) $res['data']['publisher']['slug'], false );
			/* translators: %s: the publication's name */
			update_option( 'credence_connection', array( 'ok' => true, 'message' => sprintf( __( 'Connected to Credence as %s.', 'credence' ), $res['data']['publisher']['name'] ) ), false );
		}
	}

	public static function settings_page() {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		$connection = get_option( 'credence_connection' );
		$types      = Credence_Registration::post_types();
		$map        = '';
		foreach ( (array) get_option( 'credence_topic_map', array() ) as $term => $topic ) {
			$map .= $term . ' = ' . $topic . "\n";
		}
		echo '<div class="wrap"><h1>' . esc_html__( 'Credence', 'credence' ) . '</h1>';
		if ( is_array( $connection ) ) {
			echo '<div class="notice notice-' . ( $connection['ok'] ? 'success' : 'error' ) . '"><p>' . esc_html( $connection['message'] ) . '</p></div>';
		}
		echo '<form method="post" action="options.php">';
		settings_fields( 'credence' );
		echo '<table class="form-table" role="presentation">';
		echo '<tr><th><label for="credence_service_url">' . esc_html__( 'Service address', 'credence' ) . '</label></th><td><input type="url" class="regular-text" id="credence_service_url" name="credence_service_url" value="' . esc_attr( get_option( 'credence_service_url', '' ) ) . '" placeholder="https://credence.example"></td></tr>';
		echo '<tr><th><label for="credence_api_key">' . esc_html__( 'Publisher API key', 'credence' ) . '</label></th><td><input type="password" class="regular-text" id="credence_api_key" name="credence_api_key" value="' . esc_attr( get_option( 'credence_api_key', '' ) ) . '" autocomplete="off"><p class="description">' . esc_html__( 'Tested with Credence when you save.', 'credence' ) . '</p></td></tr>';
		echo '<tr><th><label for="credence_webhook_secret">' . esc_html__( 'Webhook signing secret', 'credence' ) . '</label></th><td><input type="password" class="regular-text" id="credence_webhook_secret" name="credence_webhook_secret" value="' . esc_attr( get_option( 'credence_webhook_secret', '' ) ) . '" autocomplete="off"><p class="description">';
		/* translators: %s: this site's webhook address */
		echo esc_html( sprintf( __( 'Register %s as a webhook in Credence and paste its whsec_ secret here.', 'credence' ), rest_url( 'credence/v1/webhook' ) ) ) . '</p></td></tr>';
		echo '<tr><th>' . esc_html__( 'Post types', 'credence' ) . '</th><td>';
		foreach ( get_post_types( array( 'public' => true ), 'objects' ) as $type ) {
			echo '<label><input type="checkbox" name="credence_post_types[]" value="' . esc_attr( $type->name ) . '" ' . checked( in_array( $type->name, $types, true ), true, false ) . '> ' . esc_html( $type->labels->name ) . '</label><br>';
		}
		echo '</td></tr>';
		echo '<tr><th><label for="credence_topic_map">' . esc_html__( 'Topics', 'credence' ) . '</label></th><td><textarea class="large-text code" rows="5" id="credence_topic_map" name="credence_topic_map">' . esc_textarea( $map ) . '</textarea><p class="description">' . esc_html__( 'One line each: category:slug = topic, or post_tag:slug = topic.', 'credence' ) . '</p></td></tr>';
		echo '<tr><th>' . esc_html__( 'Placement', 'credence' ) . '</th><td><input type="hidden" name="credence_auto_embed" value="0"><label><input type="checkbox" name="credence_auto_embed" value="1" ' . checked( get_option( 'credence_auto_embed', '1' ), '1', false ) . '> ' . esc_html__( 'Show the record under each post (otherwise use the block or [credence]).', 'credence' ) . '</label></td></tr>';
		echo '</table>';
		submit_button();
		echo '</form></div>';
	}

	/**
	 * The Credence username field, and where its link stands: typing a username only asks that person, who
	 * confirms in Credence that this WordPress user is them. The answer is read again each time this is shown.
	 */
	public static function profile_field( $user ) {
		if ( ! current_user_can( 'edit_user', $user->ID ) ) {
			return;
		}
		Credence_Links::refresh( $user->ID );
		$link = Credence_Links::link_of( $user->ID );
		if ( ! $link ) {
			$state = __( 'Credence will ask that person to confirm that this WordPress account is theirs; until they do, your posts name nobody.', 'credence' );
		} else {
			$states = array(
				/* translators: %s: a Credence username */
				'pending'   => __( 'Waiting for @%s to confirm in Credence (Named as author) that this WordPress account is theirs; until then your posts name nobody.', 'credence' ),
				/* translators: %s: a Credence username */
				'confirmed' => __( 'Linked to @%s: posts you write name them as their author, and they confirm each page in Credence.', 'credence' ),
				/* translators: %s: a Credence username */
				'declined'  => __( '@%s declined: this WordPress account is not theirs, and your posts name nobody.', 'credence' ),
				/* translators: %s: a Credence username */
				'ended'     => __( '@%s unlinked this WordPress account in Credence: your posts name nobody.', 'credence' ),
			);
			$state = sprintf( $states[ $link['state'] ] ?? '%s', $link['username'] );
		}
		$error = get_transient( 'credence_link_error_' . $user->ID );
		wp_nonce_field( 'credence_profile', 'credence_profile_nonce' );
		echo '<h2>' . esc_html__( 'Credence', 'credence' ) . '</h2><table class="form-table" role="presentation"><tr><th><label for="credence_username">' . esc_html__( 'Credence username', 'credence' ) . '</label></th><td><input type="text" id="credence_username" name="credence_username" value="' . esc_attr( get_user_meta( $user->ID, 'credence_username', true ) ) . '" class="regular-text">';
		if ( is_string( $error ) && '' !== $error ) {
			delete_transient( 'credence_link_error_' . $user->ID );
			echo '<p class="credence-link-error" style="color:#b32d2e">' . esc_html( $error ) . '</p>';
		}
		echo '<p class="description credence-link" data-state="' . esc_attr( $link ? $link['state'] : 'none' ) . '">' . esc_html( $state ) . '</p></td></tr></table>';
	}

	/** A new username asks Credence for a link (the old one no longer names anybody here); an empty one forgets it. */
	public static function save_profile( $user_id ) {
		if ( ! current_user_can( 'edit_user', $user_id ) || ! isset( $_POST['credence_profile_nonce'] ) || ! wp_verify_nonce( sanitize_key( $_POST['credence_profile_nonce'] ), 'credence_profile' ) ) {
			return;
		}
		$name   = strtolower( sanitize_text_field( wp_unslash( $_POST['credence_username'] ?? '' ) ) );
		$name   = preg_match( '/^[a-z0-9-]{3,40}$/', $name ) ? $name : '';
		$before = (string) get_user_meta( $user_id, 'credence_username', true );
		update_user_meta( $user_id, 'credence_username', $name );
		$link = Credence_Links::link_of( $user_id );
		if ( '' === $name ) {
			Credence_Links::forget( $user_id );
		} elseif ( $name !== $before || ! $link || $link['username'] !== $name ) {
			Credence_Links::forget( $user_id );
			$res = Credence_Links::ask( $user_id, $name );
			if ( is_wp_error( $res ) ) {
				set_transient( 'credence_link_error_' . $user_id, $res->get_error_message(), 300 );
			}
		}
	}

	public static function meta_boxes() {
		foreach ( Credence_Registration::post_types() as $type ) {
			add_meta_box( 'credence', __( 'Credence', 'credence' ), array( __CLASS__, 'meta_box' ), $type, 'side' );
		}
	}

	public static function meta_box( $post ) {
		$error = get_post_meta( $post->ID, '_credence_error', true );
		if ( $error ) {
			echo '<p class="credence-error" style="color:#b32d2e">' . esc_html( $error ) . '</p>';
		}
		$page_id = (int) get_post_meta( $post->ID, '_credence_page_id', true );
		if ( ! $page_id ) {
			echo '<p>' . esc_html__( 'Not registered with Credence yet: publishing registers it.', 'credence' ) . '</p>';
			return;
		}
		$client = Credence_Client::from_options();
		$claims = $client->request( 'GET', '/publisher-auth/claims', null, array( 'page_id' => $page_id ) );
		echo '<h4>' . esc_html__( 'Authors', 'credence' ) . '</h4>';
		if ( is_wp_error( $claims ) ) {
			echo '<p>' . esc_html( $claims->get_error_message() ) . '</p>';
		} else {
			$states = array(
				'confirmed' => __( 'confirmed', 'credence' ),
				'pending'   => __( 'has not answered yet', 'credence' ),
				'declined'  => __( 'declined', 'credence' ),
				'withdrawn' => __( 'took their name back', 'credence' ),
			);
			echo '<ul class="credence-claims">';
			foreach ( (array) $claims['data'] as $claim ) {
				echo '<li data-state="' . esc_attr( $claim['state'] ) . '">' . esc_html( $claim['username'] ) . ': ' . esc_html( $states[ $claim['state'] ] ?? $claim['state'] ) . '</li>';
			}
			echo '</ul>';
		}
		if ( ! current_user_can( 'edit_post', $post->ID ) ) {
			return;
		}
		echo '<p><a href="' . esc_url( admin_url( 'edit.php?page=credence-work&post=' . $post->ID ) ) . '">' . esc_html__( 'Ask for work, or decide on submitted work', 'credence' ) . '</a></p>';
	}

	public static function open_request() {
		$post_id = isset( $_POST['post_id'] ) ? absint( $_POST['post_id'] ) : 0;
		check_admin_referer( 'credence_request_' . $post_id );
		if ( ! current_user_can( 'edit_post', $post_id ) ) {
			wp_die( esc_html__( 'You cannot ask for work on this post.', 'credence' ), 403 );
		}
		$type = sanitize_key( wp_unslash( $_POST['request_type'] ?? '' ) );
		$item = array(
			'url'          => get_permalink( $post_id ),
			'request_type' => in_array( $type, array( 'reviewer', 'fact_checker', 'editor', 'correction', 'source' ), true ) ? $type : 'reviewer',
			'title'        => wp_strip_all_tags( get_the_title( $post_id ) ),
			'brief'        => sanitize_textarea_field( wp_unslash( $_POST['brief'] ?? '' ) ),
		);
		$res = Credence_Client::from_options()->request( 'POST', '/requests', $item );
		self::flash( is_wp_error( $res ) ? $res->get_error_message() : __( 'The request is open in Credence’s marketplace.', 'credence' ), ! is_wp_error( $res ) );
		wp_safe_redirect( admin_url( 'edit.php?page=credence-work&post=' . $post_id ) );
		exit;
	}

	/**
	 * Submitted work (all posts, or one): its evidence, the text before and after as a diff, and a decision. Whoever
	 * can edit posts reaches the page to ask for work on their own posts, and sees the work submitted on the posts
	 * they can edit; the rest of the publication's work, and the Accept and Reject buttons, only those who decide
	 * (edit_others_posts, which decide() checks) see.
	 */
	public static function work_page() {
		if ( ! current_user_can( 'edit_posts' ) ) {
			return;
		}
		$post_id = isset( $_GET['post'] ) ? absint( $_GET['post'] ) : 0; // phpcs:ignore WordPress.Security.NonceVerification.Recommended
		if ( $post_id && ! current_user_can( 'edit_post', $post_id ) ) {
			wp_die( esc_html__( 'You cannot see the work on this post.', 'credence' ), 403 );
		}
		$decides = current_user_can( 'edit_others_posts' );
		$res     = Credence_Client::from_options()->request( 'GET', '/publisher-auth/requests', null, array( 'status' => 'pending', 'per_page' => 50 ) );
		echo '<div class="wrap"><h1>' . esc_html__( 'Submitted work', 'credence' ) . '</h1>';
		if ( is_wp_error( $res ) ) {
			echo '<div class="notice notice-error"><p>' . esc_html( $res->get_error_message() ) . '</p></div></div>';
			return;
		}
		$url = $post_id ? get_permalink( $post_id ) : null;
		if ( $post_id && current_user_can( 'edit_post', $post_id ) ) {
			/* translators: %s: the post's title */
			echo '<h2>' . esc_html( sprintf( __( 'Ask for work on “%s”', 'credence' ), get_the_title( $post_id ) ) ) . '</h2><form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
			wp_nonce_field( 'credence_request_' . $post_id );
			echo '<input type="hidden" name="action" value="credence_request"><input type="hidden" name="post_id" value="' . esc_attr( $post_id ) . '">';
			echo '<select name="request_type"><option value="reviewer">' . esc_html__( 'A review', 'credence' ) . '</option><option value="fact_checker">' . esc_html__( 'A fact check', 'credence' ) . '</option><option value="editor">' . esc_html__( 'An edit', 'credence' ) . '</option><option value="source">' . esc_html__( 'Sources', 'credence' ) . '</option></select> ';
			echo '<input type="text" name="brief" class="regular-text" placeholder="' . esc_attr__( 'What should they look at?', 'credence' ) . '"> ';
			submit_button( __( 'Open the request', 'credence' ), 'secondary', 'submit', false );
			echo '</form><h2>' . esc_html__( 'Submitted work', 'credence' ) . '</h2>';
		}
		$any = false;
		foreach ( (array) $res['data'] as $work ) {
			if ( $url && untrailingslashit( $work['page']['url'] ) !== untrailingslashit( $url ) ) {
				continue;
			}
			if ( ! $decides ) {
				$on = url_to_postid( $work['page']['url'] );
				if ( ! $on || ! current_user_can( 'edit_post', $on ) ) {
					continue;
				}
			}
			$any = true;
			echo '<div class="card credence-work"><h2>' . esc_html( $work['page']['title'] ) . '</h2>';
			echo '<p><strong>' . esc_html( $work['role'] ) . '</strong> — ' . esc_html( $work['contributor']['name'] . ' (' . $work['contributor']['username'] . ')' ) . '</p>';
			echo '<p>' . esc_html( $work['summary'] ) . '</p><p><em>' . esc_html( $work['evidence']['reason'] ) . '</em></p>';
			if ( null !== $work['evidence']['before'] || null !== $work['evidence']['after'] ) {
				echo wp_text_diff( (string) $work['evidence']['before'], (string) $work['evidence']['after'], array( 'title_left' => __( 'Before', 'credence' ), 'title_right' => __( 'After', 'credence' ) ) ); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- wp_text_diff escapes.
			}
			if ( $work['evidence']['sources'] ) {
				echo '<ul>';
				foreach ( $work['evidence']['sources'] as $source ) {
					echo '<li><a href="' . esc_url( $source ) . '" rel="nofollow noopener">' . esc_html( $source ) . '</a></li>';
				}
				echo '</ul>';
			}
			if ( ! $decides ) {
				echo '<p class="description">' . esc_html__( 'An editor decides on submitted work.', 'credence' ) . '</p></div>';
				continue;
			}
			echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
			wp_nonce_field( 'credence_decide_' . $work['id'] );
			echo '<input type="hidden" name="action" value="credence_decide"><input type="hidden" name="submission_id" value="' . esc_attr( $work['id'] ) . '"><input type="hidden" name="post_id" value="' . esc_attr( $post_id ) . '">';
			echo '<input type="text" name="note" class="regular-text" placeholder="' . esc_attr__( 'A note to the contributor (optional)', 'credence' ) . '"> ';
			echo '<button class="button button-primary" name="decision" value="accept">' . esc_html__( 'Accept', 'credence' ) . '</button> <button class="button" name="decision" value="reject">' . esc_html__( 'Reject', 'credence' ) . '</button></form></div>';
		}
		if ( ! $any ) {
			echo '<p>' . esc_html__( 'No submitted work is waiting for a decision.', 'credence' ) . '</p>';
		}
		echo '</div>';
	}

	public static function decide() {
		$id = isset( $_POST['submission_id'] ) ? absint( $_POST['submission_id'] ) : 0;
		check_admin_referer( 'credence_decide_' . $id );
		if ( ! current_user_can( 'edit_others_posts' ) ) {
			wp_die( esc_html__( 'Only editors can decide on submitted work.', 'credence' ), 403 );
		}
		$decision = 'accept' === ( $_POST['decision'] ?? '' ) ? 'accept' : 'reject';
		$item     = array( 'submission_id' => $id, 'decision' => $decision );
		$note     = sanitize_textarea_field( wp_unslash( $_POST['note'] ?? '' ) );
		if ( '' !== $note ) {
			$item['note'] = $note;
		}
		$res = Credence_Client::from_options()->request( 'POST', '/submissions/decide', $item );
		if ( ! is_wp_error( $res ) && 'failed' === ( $res['data']['status'] ?? '' ) ) {
			$res = new WP_Error( 'credence_failed', (string) ( $res['data']['error']['message'] ?? '' ) );
		}
		self::flash( is_wp_error( $res ) ? $res->get_error_message() : ( 'accept' === $decision ? __( 'Accepted: the work is now on the public record.', 'credence' ) : __( 'Rejected; your note was sent.', 'credence' ) ), ! is_wp_error( $res ) );
		$post_id = isset( $_POST['post_id'] ) ? absint( $_POST['post_id'] ) : 0;
		wp_safe_redirect( admin_url( 'edit.php?page=credence-work' . ( $post_id ? '&post=' . $post_id : '' ) ) );
		exit;
	}

	public static function import_page() {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		$nonce = wp_create_nonce( 'credence_import' );
		echo '<div class="wrap"><h1>' . esc_html__( 'Register existing posts with Credence', 'credence' ) . '</h1>';
		echo '<p>' . esc_html__( 'Sends your published posts in batches of 50. You can leave and come back: it resumes where it stopped.', 'credence' ) . '</p>';
		echo '<progress id="credence-progress" max="1" value="0" style="width:100%"></progress><p id="credence-status" aria-live="polite"></p>';
		echo '<button class="button button-primary" id="credence-start">' . esc_html__( 'Start or resume', 'credence' ) . '</button> ';
		echo '<label><input type="checkbox" id="credence-restart"> ' . esc_html__( 'From the beginning', 'credence' ) . '</label></div>';
		$script = 'document.getElementById("credence-start").addEventListener("click",function(b){b.target.disabled=true;var restart=document.getElementById("credence-restart").checked;'
			. 'function step(){var f=new FormData();f.append("action","credence_import");f.append("_ajax_nonce",' . wp_json_encode( $nonce ) . ');if(restart){f.append("restart","1");restart=false;}'
			. 'fetch(ajaxurl,{method:"POST",body:f,credentials:"same-origin"}).then(function(r){return r.json();}).then(function(r){var s=document.getElementById("credence-status"),p=document.getElementById("credence-progress");'
			. 'if(!r.success){s.textContent=r.data;b.target.disabled=false;return;}p.max=Math.max(1,r.data.total);p.value=r.data.sent;s.textContent=r.data.sent+" / "+r.data.total;if(!r.data.done){step();}else{b.target.disabled=false;}});}step();});';
		wp_print_inline_script_tag( $script );
	}

	public static function import_step() {
		check_ajax_referer( 'credence_import' );
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_send_json_error( __( 'Only administrators can run the import.', 'credence' ), 403 );
		}
		if ( ! empty( $_POST['restart'] ) ) {
			delete_option( 'credence_import_cursor' );
		}
		$res = Credence_Registration::import_step();
		if ( is_wp_error( $res ) ) {
			wp_send_json_error( $res->get_error_message() );
		}
		wp_send_json_success( $res );
	}

	private static function flash( $message, $ok ) {
		set_transient( 'credence_flash_' . get_current_user_id(), array( 'message' => $message, 'ok' => $ok ), 60 );
	}

	public static function notices() {
		$flash = get_transient( 'credence_flash_' . get_current_user_id() );
		if ( is_array( $flash ) ) {
			delete_transient( 'credence_flash_' . get_current_user_id() );
			echo '<div class="notice notice-' . ( $flash['ok'] ? 'success' : 'error' ) . ' is-dismissible"><p>' . esc_html( $flash['message'] ) . '</p></div>';
		}
	}
}
